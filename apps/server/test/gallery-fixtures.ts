import sharp from 'sharp';
import yazl from 'yazl';
import type { FastifyInstance } from 'fastify';
import type { ModelData, ModelType, UploadData } from '@loupe/contracts';
import { call, createUser, login, type Reply } from './helper.js';

/** Pixels that differ per seed, so every drawn image has its own hash. */
export function pixels(width: number, height: number, seed: number, channels = 3): Buffer {
  const buf = Buffer.alloc(width * height * channels);
  let s = seed * 2654435761 + 1;
  for (let i = 0; i < buf.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    buf[i] = (s >>> 16) & 0xff;
  }
  return buf;
}

export function draw(format: 'png' | 'jpeg' | 'tiff', width: number, height: number, seed = 1): Promise<Buffer> {
  return sharp(pixels(width, height, seed), { raw: { width, height, channels: 3 } })[format]().toBuffer();
}

/** A BMP written by hand: 24-bit, 32-bit or 8-bit palette; bottom-up unless topDown. */
export function bmp(
  width: number,
  height: number,
  opts: { bpp?: 8 | 24 | 32; topDown?: boolean; seed?: number; paint?: (x: number, y: number) => [number, number, number] } = {},
): Buffer {
  const bpp = opts.bpp ?? 24;
  const paletteSize = bpp === 8 ? 256 * 4 : 0;
  const stride = Math.floor((bpp * width + 31) / 32) * 4;
  const offset = 14 + 40 + paletteSize;
  const buf = Buffer.alloc(offset + stride * height);
  buf.write('BM', 0, 'latin1');
  buf.writeUInt32LE(buf.length, 2);
  buf.writeUInt32LE(offset, 10);
  buf.writeUInt32LE(40, 14);
  buf.writeInt32LE(width, 18);
  buf.writeInt32LE(opts.topDown ? -height : height, 22);
  buf.writeUInt16LE(1, 26);
  buf.writeUInt16LE(bpp, 28);
  buf.writeUInt32LE(0, 30);
  buf.writeUInt32LE(stride * height, 34);
  if (bpp === 8) for (let i = 0; i < 256; i++) buf.writeUInt32LE((i << 16) | (255 - i) << 8 | i, 54 + i * 4);
  const px = pixels(width, height, opts.seed ?? 7, 4);
  for (let y = 0; y < height; y++) {
    // Rows are stored bottom-up unless the height is negative (top-down).
    const row = opts.topDown ? y : height - 1 - y;
    for (let x = 0; x < width; x++) {
      const o = offset + row * stride + x * (bpp / 8);
      const p = (y * width + x) * 4;
      const rgb = opts.paint?.(x, y);
      if (bpp === 8) buf[o] = rgb ? rgb[0] : px[p]!;
      else if (rgb) [buf[o], buf[o + 1], buf[o + 2]] = [rgb[2], rgb[1], rgb[0]];
      else px.copy(buf, o, p, p + bpp / 8);
    }
  }
  return buf;
}

export interface Part {
  field?: string;
  filename: string;
  data: Buffer;
  type?: string;
}

export function multipart(parts: Part[], opts: { truncate?: boolean } = {}): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----loupe${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${p.field ?? 'files'}"; filename="${p.filename}"\r\nContent-Type: ${p.type ?? 'application/octet-stream'}\r\n\r\n`,
      ),
      p.data,
      Buffer.from('\r\n'),
    );
  }
  if (!opts.truncate) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

export interface ZipEntry {
  path: string;
  data: Buffer | string;
  /** Unix mode, e.g. 0o120777 for a symlink. */
  mode?: number;
}

export function zip(entries: ZipEntry[]): Promise<Buffer> {
  const z = new yazl.ZipFile();
  for (const e of entries) {
    z.addBuffer(Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data), e.path, e.mode ? { mode: e.mode } : {});
  }
  z.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    z.outputStream.on('data', (c: Buffer) => chunks.push(c));
    z.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    z.outputStream.on('error', reject);
  });
}

export async function userToken(app: FastifyInstance): Promise<string> {
  const { user } = await createUser(app);
  return login(app, user.email, user.password);
}

export async function newModel(app: FastifyInstance, token: string, type: ModelType = 'DETECTION', name?: string): Promise<ModelData> {
  const r = await call<ModelData>(app, 'POST', '/api/models', { name: name ?? `m-${Math.random().toString(36).slice(2)}`, type }, { token });
  if (r.code !== 0) throw new Error(r.message);
  return r.data;
}

export async function send<T = UploadData>(
  app: FastifyInstance,
  token: string,
  url: string,
  parts: Part[],
  opts: { lang?: string; truncate?: boolean } = {},
): Promise<Reply<T>> {
  const { payload, headers } = multipart(parts, opts);
  const res = await app.inject({ method: 'POST', url, payload, headers: { ...headers, 'x-token': token, ...(opts.lang ? { language: opts.lang } : {}) } });
  return { status: res.statusCode, ...(res.json() as { code: number; message: string; data: T }) };
}

export const uploadUrl = (id: number) => `/api/models/${id}/images/upload`;
export const folderUrl = (id: number) => `/api/models/${id}/images/folders`;
export const zipUrl = (id: number) => `/api/models/${id}/images/annotations`;
