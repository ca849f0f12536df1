import sharp from 'sharp';
import { Limits, type ImageKind } from '@loupe/contracts';
import { BmpError, bmpPalette, bmpStride, readBmpHeader } from './bmp.js';
import { sampleBmp, WorkerTaskError } from './workers.js';

/** What the bytes say the file is (magic numbers); null when it is none of the gallery types. */
export function sniffKind(head: Buffer): ImageKind | null {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return isMpo(head) ? 'mpo' : 'jpeg';
  if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (head.length >= 26 && head[0] === 0x42 && head[1] === 0x4d) return 'bmp';
  if (head.length >= 4) {
    const sig = head.subarray(0, 4).toString('latin1');
    if (sig === 'II*\0' || sig === 'MM\0*') return 'tiff';
  }
  // RIFF container, then the 4-byte size, then the WEBP form type (lossy VP8, lossless VP8L or extended VP8X).
  if (head.length >= 12 && head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  return null;
}

/** An MPO is a JPEG whose APP2 segment carries the "MPF" multi-picture index. */
function isMpo(head: Buffer): boolean {
  let p = 2;
  while (p + 4 <= head.length && head[p] === 0xff) {
    const marker = head[p + 1]!;
    if (marker === 0xda || marker === 0xd9) return false;
    const len = head.readUInt16BE(p + 2);
    if (marker === 0xe2 && head.subarray(p + 4, p + 8).toString('latin1') === 'MPF\0') return true;
    p += 2 + len;
  }
  return false;
}

export class ProbeError extends Error {}

export interface Probed {
  kind: ImageKind;
  width: number;
  height: number;
  /** JPEG thumbnail, Limits.thumbnailPx on the long side. */
  thumbnail: Buffer;
}

/** Reads the dimensions from the header only (cheap), so the size rules run before any full decode. */
export async function dimensions(file: string, kind: ImageKind, head: Buffer): Promise<{ width: number; height: number }> {
  try {
    if (kind === 'bmp') {
      const h = readBmpHeader(head);
      return { width: h.width, height: h.height };
    }
    const meta = await sharp(file, { limitInputPixels: false }).metadata();
    if (!meta.width || !meta.height) throw new ProbeError('no size');
    return { width: meta.width, height: meta.height };
  } catch (e) {
    throw e instanceof ProbeError ? e : new ProbeError(String(e));
  }
}

/**
 * Decodes the whole image (a corrupt or truncated file fails here) and draws the thumbnail. Callers check
 * the header's size first (Limits.imageMaxPixels), so nothing here decodes a decompression bomb: sharp
 * decodes on libuv's pool with the same pixel limit, and a BMP is read on a worker thread in row chunks,
 * keeping only a sample twice the thumbnail's size, so neither the event loop nor memory grows with it.
 */
export async function thumbnail(file: string, kind: ImageKind, head: Buffer, bytes: number): Promise<Buffer> {
  try {
    let input: sharp.Sharp;
    if (kind === 'bmp') {
      const h = readBmpHeader(head);
      const stride = bmpStride(h);
      if (h.offset + stride * h.height > bytes) throw new BmpError('truncated BMP');
      const palette = bmpPalette(head, h);
      const sample = await sampleBmp({ file, width: h.width, height: h.height, bpp: h.bpp, topDown: h.topDown, offset: h.offset, stride, palette, target: Limits.thumbnailPx * 2 });
      input = sharp(sample.rgb, { raw: { width: sample.width, height: sample.height, channels: 3 } });
    } else {
      input = sharp(file, { failOn: 'truncated', limitInputPixels: Limits.imageMaxPixels });
    }
    return await input
      .resize(Limits.thumbnailPx, Limits.thumbnailPx, { fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 80 })
      .toBuffer();
  } catch (e) {
    throw new ProbeError(e instanceof BmpError || e instanceof WorkerTaskError ? e.message : String(e));
  }
}
