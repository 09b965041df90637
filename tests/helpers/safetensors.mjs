// Test helper: a safetensors file as PyTorch's own save_file would write it for the same
// tensors — the same header and bytes without our "__metadata__" (the model's config).
export function withoutMetadata(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  delete header.__metadata__;
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (text.length % 8)) % 8); // the header is ASCII: characters are bytes
  const head = new TextEncoder().encode(text);
  const out = new Uint8Array(8 + head.length + (bytes.length - 8 - n));
  new DataView(out.buffer).setBigUint64(0, BigInt(head.length), true);
  out.set(head, 8);
  out.set(bytes.subarray(8 + n), 8 + head.length);
  return out;
}
