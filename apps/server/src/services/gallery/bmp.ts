/**
 * A small BMP decoder (sharp cannot read BMP): BI_RGB 24/32-bit and 1/4/8-bit palette, plus 32-bit
 * BI_BITFIELDS with the usual BGRA masks; bottom-up or top-down. Gives RGB pixels for sharp's raw input.
 */
export interface BmpHeader {
  width: number;
  height: number;
  bpp: number;
  topDown: boolean;
  offset: number;
  dibSize: number;
  compression: number;
  colors: number;
}

export class BmpError extends Error {}

export function readBmpHeader(buf: Buffer): BmpHeader {
  if (buf.length < 26 || buf[0] !== 0x42 || buf[1] !== 0x4d) throw new BmpError('not a BMP');
  const offset = buf.readUInt32LE(10);
  const dibSize = buf.readUInt32LE(14);
  if (dibSize < 40 || buf.length < 14 + dibSize) throw new BmpError('unsupported BMP header');
  const width = buf.readInt32LE(18);
  const rawHeight = buf.readInt32LE(22);
  const bpp = buf.readUInt16LE(28);
  const compression = buf.readUInt32LE(30);
  const colors = buf.readUInt32LE(46);
  if (width <= 0 || rawHeight === 0) throw new BmpError('bad BMP size');
  if (![1, 4, 8, 24, 32].includes(bpp)) throw new BmpError(`unsupported bit depth ${bpp}`);
  const bitfields32 = compression === 3 && bpp === 32;
  if (compression !== 0 && !bitfields32) throw new BmpError('compressed BMP');
  return { width, height: Math.abs(rawHeight), bpp, topDown: rawHeight < 0, offset, dibSize, compression, colors };
}

/** RGB pixels, top row first. Throws BmpError when the file is shorter than its header promises. */
export function decodeBmp(buf: Buffer): { width: number; height: number; rgb: Buffer } {
  const h = readBmpHeader(buf);
  const stride = Math.floor((h.bpp * h.width + 31) / 32) * 4;
  if (h.offset + stride * h.height > buf.length) throw new BmpError('truncated BMP');
  let palette: Buffer | null = null;
  if (h.bpp <= 8) {
    const count = h.colors || 1 << h.bpp;
    const start = 14 + h.dibSize;
    if (start + count * 4 > h.offset) throw new BmpError('bad palette');
    palette = buf.subarray(start, start + count * 4);
  }
  const rgb = Buffer.allocUnsafe(h.width * h.height * 3);
  for (let y = 0; y < h.height; y++) {
    const srcRow = h.offset + (h.topDown ? y : h.height - 1 - y) * stride;
    let o = y * h.width * 3;
    for (let x = 0; x < h.width; x++, o += 3) {
      if (h.bpp === 24 || h.bpp === 32) {
        const p = srcRow + x * (h.bpp / 8);
        rgb[o] = buf[p + 2]!;
        rgb[o + 1] = buf[p + 1]!;
        rgb[o + 2] = buf[p]!;
        continue;
      }
      const bit = x * h.bpp;
      const byte = buf[srcRow + (bit >> 3)]!;
      const index = (byte >> (8 - h.bpp - (bit & 7))) & ((1 << h.bpp) - 1);
      const pe = index * 4;
      if (!palette || pe + 3 > palette.length) throw new BmpError('palette index out of range');
      rgb[o] = palette[pe + 2]!;
      rgb[o + 1] = palette[pe + 1]!;
      rgb[o + 2] = palette[pe]!;
    }
  }
  return { width: h.width, height: h.height, rgb };
}
