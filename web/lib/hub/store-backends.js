// Where the store keeps bytes: the few operations it needs (folders, text files, pieces written
// in parts, removal), over the origin private file system or memory. store.js's header says why OPFS.
import { ROOT_FOLDER } from './store-layout.js';

/** OPFS under navigator.storage.getDirectory()/ROOT_FOLDER. Throws where it is unavailable. */
export async function opfsBackend(storage = globalThis.navigator?.storage) {
  if (typeof storage?.getDirectory !== 'function') throw new Error('this browser has no origin private file system');
  const top = await storage.getDirectory(); // SecurityError in Firefox's private windows
  const root = await top.getDirectoryHandle(ROOT_FOLDER, { create: true });
  if (typeof globalThis.FileSystemFileHandle?.prototype?.createWritable !== 'function')
    throw new Error('this browser cannot write files of the origin private file system from a page');
  const folder = (name, create = false) =>
    root.getDirectoryHandle(name, { create }).catch((error) => {
      if (!create && error?.name === 'NotFoundError') return null;
      throw error;
    });
  return {
    kind: 'opfs',
    async folders() {
      const out = [];
      for await (const [name, handle] of root.entries()) if (handle.kind === 'directory') out.push(name);
      return out;
    },
    async readText(dir, name) {
      const d = await folder(dir);
      if (!d) return null;
      try {
        return await (await (await d.getFileHandle(name)).getFile()).text();
      } catch (error) {
        if (error?.name === 'NotFoundError') return null;
        throw error;
      }
    },
    async writeText(dir, name, text) {
      const w = await (await (await folder(dir, true)).getFileHandle(name, { create: true })).createWritable();
      try {
        await w.write(text);
        await w.close(); // replaces the file at once: a reader sees the old text or the new
      } catch (error) {
        await w.abort().catch(() => {});
        throw error;
      }
    },
    async createPiece(dir, name) {
      const w = await (await (await folder(dir, true)).getFileHandle(name, { create: true })).createWritable();
      return { write: (bytes) => w.write(bytes), close: () => w.close(), abort: () => w.abort() };
    },
    async pieceBlob(dir, name) {
      const d = await folder(dir);
      return d ? (await d.getFileHandle(name)).getFile() : null;
    },
    async removeFile(dir, name) {
      const d = await folder(dir);
      await d?.removeEntry(name).catch((error) => {
        if (error?.name !== 'NotFoundError') throw error;
      });
    },
    async removeFolder(dir) {
      await root.removeEntry(dir, { recursive: true }).catch((error) => {
        if (error?.name !== 'NotFoundError') throw error;
      });
    },
  };
}

/** Everything in memory (Blobs): for Node, the tests, and browsers where OPFS is unavailable. */
export function memoryBackend() {
  const folders = new Map();
  const folder = (dir) => {
    if (!folders.has(dir)) folders.set(dir, new Map());
    return folders.get(dir);
  };
  return {
    kind: 'memory',
    async folders() {
      return [...folders.keys()];
    },
    async readText(dir, name) {
      const v = folders.get(dir)?.get(name);
      return v === undefined ? null : v.text();
    },
    async writeText(dir, name, text) {
      folder(dir).set(name, new Blob([text]));
    },
    async createPiece(dir, name) {
      const chunks = [];
      return {
        async write(bytes) {
          chunks.push(bytes.slice());
        },
        async close() {
          folder(dir).set(name, new Blob(chunks));
        },
        async abort() {
          chunks.length = 0;
        },
      };
    },
    async pieceBlob(dir, name) {
      return folders.get(dir)?.get(name) ?? null;
    },
    async removeFile(dir, name) {
      folders.get(dir)?.delete(name);
    },
    async removeFolder(dir) {
      folders.delete(dir);
    },
  };
}
