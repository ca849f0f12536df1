/**
 * BMP headers (sharp cannot read BMP): BI_RGB 24/32-bit and 1/4/8-bit palette, plus 32-bit BI_BITFIELDS
 * with the usual BGRA masks; bottom-up or top-down. The header is read on the event loop (it is a few bytes,
 * and the size rules run on it before anything is decoded); the pixels are read on a worker (workers.ts).
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

/** Bytes per stored row (rows are padded to 4 bytes). */
export const bmpStride = (h: BmpHeader) => Math.floor((h.bpp * h.width + 31) / 32) * 4;

/**
 * The palette (BGRA entries) of a 1/4/8-bit BMP, read from its first bytes; empty for 24/32-bit.
 * Throws BmpError when it does not fit between the header and the pixels.
 */
export function bmpPalette(head: Buffer, h: BmpHeader): Buffer {
  if (h.bpp > 8) return Buffer.alloc(0);
  // More colours than the depth can index are never used: clamp rather than refuse.
  const count = Math.min(h.colors || 1 << h.bpp, 1 << h.bpp);
  const start = 14 + h.dibSize;
  if (start + count * 4 > h.offset || start + count * 4 > head.length) throw new BmpError('bad palette');
  return Buffer.from(head.subarray(start, start + count * 4));
}
