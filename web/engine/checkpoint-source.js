// Where engine.openModel reads a checkpoint from, slice by slice, so that a 500 MB file is never
// held whole in JavaScript beside its copy in the engine: bytes already in memory (read in place),
// a Blob or File (Blob.slice), a URL (one streaming GET, read forward), or the caller's own
// {size, read(offset, length)}. Every reader answers read(offset, length) with exactly `length`
// bytes or throws an AttentionError naming 'source' and the byte offset; offsets only move forward.

import { AttentionError, describe } from './args.js';

const sourceError = (message) => new AttentionError(`source: ${message}`, 'source');

function checkAborted(signal) {
  if (signal?.aborted) throw new AttentionError('signal: the read was aborted', 'signal');
}

// Bytes from what a read() gave: a Uint8Array or an ArrayBuffer (or a view of one).
function asBytes(value, offset, length) {
  const bytes =
    value instanceof Uint8Array
      ? value
      : value instanceof ArrayBuffer
        ? new Uint8Array(value)
        : ArrayBuffer.isView(value)
          ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
          : null;
  if (!bytes) throw sourceError(`read(${offset}, ${length}) gave ${describe(value)}, expected a Uint8Array`);
  return bytes;
}

function exactly(bytes, offset, length, size) {
  if (bytes.length < length) {
    throw sourceError(
      `the file ends at byte ${offset + bytes.length}, but bytes [${offset}, ${offset + length}) are needed` +
        (size === undefined ? '' : ` (the file is said to be ${size} bytes)`),
    );
  }
  return bytes.length === length ? bytes : bytes.subarray(0, length);
}

// Bytes in memory: slices are views, nothing is copied here.
function memoryReader(bytes) {
  return {
    size: bytes.length,
    async read(offset, length) {
      return exactly(bytes.subarray(offset, offset + length), offset, length, bytes.length);
    },
    async finish() {},
    close() {},
  };
}

function blobReader(blob) {
  return {
    size: blob.size,
    async read(offset, length) {
      let buffer;
      try {
        buffer = await blob.slice(offset, offset + length).arrayBuffer();
      } catch (error) {
        throw sourceError(`could not read bytes [${offset}, ${offset + length}) (${error?.message ?? error})`);
      }
      return exactly(new Uint8Array(buffer), offset, length, blob.size);
    },
    async finish() {},
    close() {},
  };
}

// One GET, read forward: bytes before an offset asked for are skipped as they stream past. The
// size is the Content-Length when the body is not encoded (gzip would make it the compressed
// size); otherwise unknown, and finish(end) checks that the body ends exactly where the header
// says the last tensor does.
async function urlReader(url, signal) {
  let response;
  try {
    response = await fetch(url, { signal });
  } catch (error) {
    checkAborted(signal);
    throw sourceError(`could not fetch ${url} (${error?.message ?? error})`);
  }
  if (!response.ok) throw sourceError(`HTTP ${response.status} for ${url}`);
  if (!response.body) throw sourceError(`the response for ${url} has no body to stream`);
  const encoding = response.headers.get('content-encoding');
  const declared = response.headers.get('content-length');
  const size =
    declared !== null && /^\d+$/.test(declared) && (!encoding || encoding === 'identity')
      ? Number(declared)
      : undefined;
  const stream = response.body.getReader();
  let position = 0; // the file byte of pending[0]
  let pending = new Uint8Array(0);
  let done = false;
  // The next chunk of the body into pending (called when pending is used up).
  const pull = async () => {
    let result;
    try {
      result = await stream.read();
    } catch (error) {
      checkAborted(signal);
      throw sourceError(`the download of ${url} failed at byte ${position} (${error?.message ?? error})`);
    }
    if (result.done) done = true;
    else pending = result.value;
  };
  // Drops the bytes before `offset`; false when the body ends first.
  const skipTo = async (offset) => {
    while (position < offset) {
      if (pending.length === 0) {
        if (done) return false;
        await pull();
        continue;
      }
      const skip = Math.min(offset - position, pending.length);
      pending = pending.subarray(skip);
      position += skip;
    }
    return true;
  };
  const ended = (offset, length) =>
    sourceError(`${url} ends at byte ${position}, but bytes [${offset}, ${offset + length}) are needed`);
  return {
    size,
    async read(offset, length) {
      if (offset < position) throw sourceError(`read(${offset}) after byte ${position}: a download reads forward only`);
      if (!(await skipTo(offset))) throw ended(offset, length);
      const out = new Uint8Array(length);
      for (let filled = 0; filled < length;) {
        if (pending.length === 0) {
          if (done) throw ended(offset, length);
          await pull();
          continue;
        }
        const take = Math.min(length - filled, pending.length);
        out.set(pending.subarray(0, take), filled);
        pending = pending.subarray(take);
        position += take;
        filled += take;
      }
      return out;
    },
    // The body must end exactly at `end`, where the header says the last tensor does.
    async finish(end) {
      if (!(await skipTo(end))) throw ended(end, 0);
      while (!done && pending.length === 0) await pull();
      if (pending.length > 0) throw sourceError(`${url} continues past byte ${end}, where its last tensor ends`);
    },
    close() {
      if (!done) stream.cancel().catch(() => {}); // an unfinished download (an error, abort) stops
    },
  };
}

function callerReader(source) {
  const { size } = source;
  if (!Number.isSafeInteger(size) || size < 0) {
    throw sourceError(`{size, read}: size must be a whole number of bytes, got ${describe(size)}`);
  }
  return {
    size,
    async read(offset, length) {
      let value;
      try {
        value = await source.read(offset, length);
      } catch (error) {
        if (error instanceof AttentionError) throw error;
        throw sourceError(`read(${offset}, ${length}) threw (${error?.message ?? error})`);
      }
      return exactly(asBytes(value, offset, length), offset, length, size);
    },
    async finish() {},
    close() {},
  };
}

/**
 * A reader over `source`: a Uint8Array or ArrayBuffer, a Blob or File, a URL (string or URL),
 * or {size, read(offset, length)} returning (a promise of) a Uint8Array.
 */
export async function openSource(source, signal) {
  if (source instanceof Uint8Array) return memoryReader(source);
  if (source instanceof ArrayBuffer) return memoryReader(new Uint8Array(source));
  if (typeof Blob === 'function' && source instanceof Blob) return blobReader(source);
  if (typeof source === 'string' || (typeof URL === 'function' && source instanceof URL)) {
    const base = typeof location === 'object' && location?.href ? location.href : undefined;
    let url;
    try {
      url = new URL(source, base);
    } catch {
      throw sourceError(`${describe(source)} is not a URL`);
    }
    return urlReader(url.href, signal);
  }
  if (source && typeof source === 'object' && typeof source.read === 'function' && 'size' in source) {
    return callerReader(source);
  }
  throw sourceError(
    `expected a Uint8Array, ArrayBuffer, Blob or File, a URL, or {size, read(offset, length)}, got ${describe(source)}`,
  );
}

/** The text of a config.json given as a string, a plain object, bytes or (async) a Blob; '' for none. */
export async function configText(value) {
  if (value === undefined || value === null) return '';
  if (typeof Blob === 'function' && value instanceof Blob)
    return configTextSync(new Uint8Array(await value.arrayBuffer()));
  return configTextSync(value);
}

export function configTextSync(value) {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(value);
    } catch {
      throw new AttentionError('config: the bytes are not UTF-8 text (a config.json)', 'config');
    }
  }
  if (typeof value === 'object' && !Array.isArray(value)) {
    try {
      return JSON.stringify(value);
    } catch (error) {
      throw new AttentionError(`config: could not be written as JSON (${error?.message ?? error})`, 'config');
    }
  }
  throw new AttentionError(
    `config: expected config.json's text, its parsed object, its bytes or a Blob, got ${describe(value)}`,
    'config',
  );
}
