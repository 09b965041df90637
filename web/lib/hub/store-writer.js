// Writing one file of a model into the store piece by piece, so that what arrived is kept when the
// connection drops (store.js's header). `mf` is the store's manifests (store-layout.js).
import { fileBytes, pieceName, storageError } from './store-layout.js';

/** Opens `name` in the manifest for writing: a new entry, or the kept one when its ETag is the same. */
function startFile(mf, s, dir, name, { etag, total }) {
  return mf
    .serial(async () => {
      const { m } = await mf.of(s, true);
      const f = m.files[name];
      if (f && fileBytes(f) > 0 && (f.etag ?? null) !== (etag ?? null))
        throw new Error(`${name}: the kept bytes are of another version (ETag ${f.etag}, now ${etag})`);
      m.files[name] = { etag, total, pieces: f?.pieces ?? [], complete: false };
      if (!m.order.includes(name)) m.order.push(name);
      m.complete = false;
      m.updated = new Date().toISOString();
      await mf.write(dir, m);
    })
    .catch((error) => {
      throw storageError(error, `starting ${name}`);
    });
}

/** Adds a closed piece (`p`, `bytes` long) to `name`'s entry. */
function keepPiece(mf, s, dir, name, p, bytes) {
  return mf.serial(async () => {
    const { m } = await mf.of(s);
    if (!m?.files[name]) throw new Error(`${name} was removed while it downloaded`);
    m.files[name].pieces.push({ name: p, bytes });
    m.updated = new Date().toISOString();
    await mf.write(dir, m);
  });
}

/** Marks `name` complete once its bytes are its total. */
function finishFile(mf, s, dir, name) {
  return mf
    .serial(async () => {
      const { m } = await mf.of(s);
      const f = m?.files[name];
      if (!f) throw new Error(`${name} was removed while it downloaded`);
      const have = fileBytes(f);
      if (f.total !== null && have !== f.total) throw new Error(`${name}: ${have} bytes kept, ${f.total} expected`);
      f.total = have;
      f.complete = true;
      m.updated = new Date().toISOString();
      await mf.write(dir, m);
    })
    .catch((error) => {
      throw storageError(error, `finishing ${name}`);
    });
}

/**
 * A writer appending to `name` from the bytes already kept (store.writer's documentation):
 * write(bytes), commit(), abort(), finish(). Pieces are at most `pieceBytes`.
 */
export async function openWriter(mf, spec, name, { etag = null, total = null, pieceBytes }) {
  const { s, dir } = await mf.of(spec);
  await startFile(mf, s, dir, name, { etag, total });
  let piece = null,
    pieceBytesWritten = 0,
    closed = false;
  const commit = async () => {
    if (!piece) return;
    const current = piece;
    piece = null;
    try {
      await current.handle.close();
      await keepPiece(mf, s, dir, name, current.name, pieceBytesWritten);
    } catch (error) {
      throw storageError(error, `keeping ${name}`);
    } finally {
      pieceBytesWritten = 0;
    }
  };
  const newPiece = async () => {
    const { m } = await mf.of(s);
    const pn = pieceName(name, etag, m?.files[name]?.pieces.length ?? 0);
    try {
      return { name: pn, handle: await mf.backend.createPiece(dir, pn) };
    } catch (error) {
      throw storageError(error, `writing ${name}`);
    }
  };
  return {
    /** Bytes kept before this writer started. */
    async write(bytes) {
      if (closed) throw new Error('write after finish/abort');
      let at = 0;
      while (at < bytes.length) {
        piece ??= await newPiece();
        const take = Math.min(bytes.length - at, pieceBytes - pieceBytesWritten);
        try {
          await piece.handle.write(at === 0 && take === bytes.length ? bytes : bytes.subarray(at, at + take));
        } catch (error) {
          await piece.handle.abort().catch(() => {});
          piece = null;
          pieceBytesWritten = 0;
          throw storageError(error, `writing ${name}`);
        }
        pieceBytesWritten += take;
        at += take;
        if (pieceBytesWritten >= pieceBytes) await commit();
      }
    },
    commit,
    async abort() {
      closed = true;
      if (piece) await piece.handle.abort().catch(() => {});
      piece = null;
    },
    async finish() {
      await commit();
      closed = true;
      await finishFile(mf, s, dir, name);
    },
  };
}
