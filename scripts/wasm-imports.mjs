// The import names of a WebAssembly module, and a copy with them renamed: how build-dist.mjs
// lets the element's one Emscripten glue load both builds of the engine.
//
// Emscripten minifies the names a module imports ("a", "b", …) and writes the matching table
// into its glue (var asmLibraryArg = {"d": __embind_register_function, …}). The two engine builds
// import the same JS functions but may be given other letters for them (the letters follow how
// often each is called), so the whole engine is renamed to the small engine's letters.
//
// Binary format (WebAssembly core spec §5.5): after the 8-byte header, sections of
//   id (byte), size (LEB128 u32), content;
// the import section (id 2) holds a count and per import: module name, field name (each LEB128
// length + UTF-8), a kind byte and its description (func: type index; table: reftype + limits;
// memory: limits; global: valtype + mutability).

const IMPORT_SECTION = 2;
const utf8 = new TextDecoder();
const toUtf8 = new TextEncoder();

function readLeb(bytes, at) {
  let value = 0,
    shift = 0,
    byte;
  do {
    byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return { value, at };
}

function leb(value) {
  const out = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value) byte |= 0x80;
    out.push(byte);
  } while (value);
  return out;
}

// The import section's entries: {module, field, desc (the raw kind + description bytes)}.
function parseImports(bytes, start, end) {
  let { value: count, at } = readLeb(bytes, start);
  const imports = [];
  const name = () => {
    const { value: length, at: from } = readLeb(bytes, at);
    at = from + length;
    return utf8.decode(bytes.subarray(from, at));
  };
  const limits = () => {
    const flags = bytes[at++];
    at = readLeb(bytes, at).at;
    if (flags & 1) at = readLeb(bytes, at).at;
  };
  while (count--) {
    const module = name(),
      field = name();
    const from = at,
      kind = bytes[at++];
    if (kind === 0)
      at = readLeb(bytes, at).at; // func: type index
    else if (kind === 1) {
      at++;
      limits();
    } // table: reftype, limits
    else if (kind === 2)
      limits(); // memory: limits
    else if (kind === 3)
      at += 2; // global: valtype, mutability
    else throw new Error(`wasm-imports: unknown import kind ${kind}`);
    imports.push({ module, field, desc: bytes.subarray(from, at) });
  }
  if (at !== end) throw new Error('wasm-imports: the import section does not end where its size says');
  return imports;
}

function sections(bytes) {
  const out = [];
  let at = 8;
  while (at < bytes.length) {
    const id = bytes[at];
    const { value: size, at: start } = readLeb(bytes, at + 1);
    out.push({ id, from: at, start, end: start + size });
    at = start + size;
  }
  return out;
}

/** The imports of a module: [{module, field}] in order. */
export function wasmImports(bytes) {
  const section = sections(bytes).find((s) => s.id === IMPORT_SECTION);
  return section ? parseImports(bytes, section.start, section.end).map(({ module, field }) => ({ module, field })) : [];
}

/** A copy of the module with each import field renamed by rename(field, module) (same order). */
export function renameWasmImports(bytes, rename) {
  const section = sections(bytes).find((s) => s.id === IMPORT_SECTION);
  if (!section) return Uint8Array.from(bytes);
  const content = [...leb(0)];
  const imports = parseImports(bytes, section.start, section.end);
  content.splice(0, content.length, ...leb(imports.length));
  for (const { module, field, desc } of imports) {
    for (const text of [module, rename(field, module)]) {
      const encoded = toUtf8.encode(text);
      content.push(...leb(encoded.length), ...encoded);
    }
    content.push(...desc);
  }
  const head = [IMPORT_SECTION, ...leb(content.length)];
  const out = new Uint8Array(section.from + head.length + content.length + (bytes.length - section.end));
  out.set(bytes.subarray(0, section.from), 0);
  out.set(head, section.from);
  out.set(content, section.from + head.length);
  out.set(bytes.subarray(section.end), section.from + head.length + content.length);
  return out;
}

/** Emscripten glue's import table: {minified name → JS function name}. */
export function glueImportTable(glue) {
  const match = /var asmLibraryArg=\{([^}]*)\}/.exec(glue);
  if (!match) throw new Error('wasm-imports: no asmLibraryArg table in the glue');
  return Object.fromEntries([...match[1].matchAll(/"([^"]+)":([\w$]+)/g)].map((m) => [m[1], m[2]]));
}
