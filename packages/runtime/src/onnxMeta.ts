/**
 * Reads ModelProto.metadata_props (field 14) straight from the ONNX protobuf bytes: onnxruntime-node does not
 * expose custom metadata, and the engine writes Loupe's metadata there.
 */
function readVarint(buf: Uint8Array, pos: number): [number, number] {
  let result = 0;
  let shift = 1;
  for (;;) {
    const b = buf[pos++];
    if (b === undefined) throw new Error("truncated ONNX file");
    result += (b & 0x7f) * shift;
    if (!(b & 0x80)) return [result, pos];
    shift *= 128;
  }
}

function fields(buf: Uint8Array, visit: (field: number, payload: Uint8Array) => void): void {
  let pos = 0;
  while (pos < buf.length) {
    const [tag, p1] = readVarint(buf, pos);
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    pos = p1;
    if (wire === 0) pos = readVarint(buf, pos)[1];
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      const [len, p2] = readVarint(buf, pos);
      visit(field, buf.subarray(p2, p2 + len));
      pos = p2 + len;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
  }
}

export function readMetadataProps(model: Uint8Array): Record<string, string> {
  const out: Record<string, string> = {};
  const dec = new TextDecoder();
  fields(model, (field, payload) => {
    if (field !== 14) return;
    let key = "";
    let value = "";
    fields(payload, (f, p) => {
      if (f === 1) key = dec.decode(p);
      else if (f === 2) value = dec.decode(p);
    });
    out[key] = value;
  });
  return out;
}
