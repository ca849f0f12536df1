import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import zlib from 'node:zlib';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors, Limits, type ModelData } from '@loupe/contracts';
import { startApp, type TestApp } from './helper.js';
import { draw, multipart, newModel, send, uploadUrl, userToken, zipUrl, type Part } from './gallery-fixtures.js';

/**
 * No request may stall the server (issue 30, item 4). The real server listens on a port; each hostile or
 * merely big input is uploaded over HTTP while the event loop's delay and the process's memory are sampled.
 * Measured before the fix: the 16384x16000 BMP froze the loop 10.7 s (163 MB -> 956 MB), a ZIP bomb took
 * 33 s and 1.6 GB, a 2-million-point COCO polygon 5 s, a ZIP of 150,000 entries 40 s, 3,000 empty parts 2.8 s.
 */
const STALL_MS = 200;
const MB = 1024 * 1024;

let t: TestApp;
let token: string;
let m: ModelData;
let base: string;

beforeAll(async () => {
  t = await startApp();
  token = await userToken(t.app);
  m = await newModel(t.app, token, 'SEGMENTATION');
  // The annotation imports need an image to match.
  expect((await send(t.app, token, uploadUrl(m.id), [{ filename: 'a.jpg', data: await draw('jpeg', 200, 100, 3) }])).data.accepted).toBe(1);
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  // One request over the socket first: the first one also pays for compiling the code on its path.
  await measureOnce(uploadUrl(m.id), multipart([{ filename: 'warm.jpg', data: await draw('jpeg', 64, 64, 4) }]));
}, 60_000);
afterAll(() => t.close());

interface Measured {
  status: number;
  body: { code: number; message: string; data: unknown };
  stallMs: number;
  rssGrowthMb: number;
}

// The test builds its inputs in this same process (150,000 ZIP entries, 30 MB BMPs): collect that garbage before
// each measurement, so that the collector's pause for it is not counted as the server's stall.
v8.setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

type Body = { payload: Buffer; headers: Record<string, string> };

/**
 * Measures one upload; when it stalled, measures it again (with a fresh body from `body()` where the
 * first was stored), at most twice more, and keeps the smallest stall. A stall the server causes happens
 * again, every time; the OS descheduling this process on a shared, loaded machine (2 cores, load 10 and
 * more while this was written) does not.
 */
async function measure(url: string, body: Body | (() => Body)): Promise<Measured> {
  const make = typeof body === 'function' ? body : () => body;
  // Up to three tries: in the full suite another worker trains an engine on the same two cores.
  let best = await measureOnce(url, make());
  for (let i = 0; i < 2 && best.stallMs >= STALL_MS; i++) {
    const again = await measureOnce(url, make());
    if (again.stallMs < best.stallMs) best = again;
  }
  return best;
}

/** POSTs the body to the listening server, sampling event-loop delay and RSS until the answer is read. */
async function measureOnce(url: string, body: Body): Promise<Measured> {
  collect();
  const h = monitorEventLoopDelay({ resolution: 10 });
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  h.enable();
  try {
    // node:http, not fetch: undici's fetch turns a Buffer body into a JavaScript stream and itself held this
    // process's event loop for up to 0.9 s on a 32 MB body, which would be measured as the server's stall.
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const headers = { ...body.headers, 'x-token': token, 'content-length': String(body.payload.length) };
      const req = http.request(`${base}${url}`, { method: 'POST', headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body.payload);
    });
    const out = { status, body: JSON.parse(text) as Measured['body'], stallMs: h.max / 1e6, rssGrowthMb: (peak - rss0) / MB };
    console.log(`stall ${url.split('/').pop()} ${status}: ${out.stallMs.toFixed(0)} ms, rss +${out.rssGrowthMb.toFixed(0)} MB`);
    return out;
  } finally {
    h.disable();
    clearInterval(sampler);
  }
}

/** A 1-bit (2-colour) or 8-bit BMP header with `colors` palette entries, followed by `pixelBytes` of pixels. */
function bmpOf(width: number, height: number, bpp: 1 | 8, colors: number, pixelBytes: number, fill = 0): Buffer {
  const offset = 14 + 40 + colors * 4;
  const buf = Buffer.alloc(offset + pixelBytes, fill);
  buf.fill(0, 0, offset);
  buf.write('BM', 0, 'latin1');
  buf.writeUInt32LE(buf.length, 2);
  buf.writeUInt32LE(offset, 10);
  buf.writeUInt32LE(40, 14);
  buf.writeInt32LE(width, 18);
  buf.writeInt32LE(height, 22);
  buf.writeUInt16LE(1, 26);
  buf.writeUInt16LE(bpp, 28);
  buf.writeUInt32LE(colors, 46);
  for (let i = 0; i < colors; i++) buf.writeUInt32LE((((i * 16) & 0xff) << 16) | (((255 - i * 16) & 0xff) << 8) | ((i * 8) & 0xff), 54 + i * 4);
  return buf;
}

interface RawEntry {
  name: string;
  /** Deflated (method 8) or stored (method 0) bytes as they go into the archive. */
  data: Buffer;
  method: 0 | 8;
  crc: number;
  size: number;
}

/**
 * A ZIP written by hand (yazl takes minutes for 150,000 entries), with ZIP64 end records when the entry
 * count needs them. `size` is what the headers declare, so a test can make an entry lie about it.
 */
function rawZip(entries: RawEntry[]): Buffer {
  const local: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const l = Buffer.alloc(30);
    l.writeUInt32LE(0x04034b50, 0);
    l.writeUInt16LE(20, 4);
    l.writeUInt16LE(e.method, 8);
    l.writeUInt16LE(0x21, 12);
    l.writeUInt32LE(e.crc, 14);
    l.writeUInt32LE(e.data.length, 18);
    l.writeUInt32LE(e.size, 22);
    l.writeUInt16LE(name.length, 26);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(e.method, 10);
    c.writeUInt16LE(0x21, 14);
    c.writeUInt32LE(e.crc, 16);
    c.writeUInt32LE(e.data.length, 20);
    c.writeUInt32LE(e.size, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(offset, 42);
    local.push(l, name, e.data);
    central.push(c, name);
    offset += 30 + name.length + e.data.length;
  }
  const cd = Buffer.concat(central);
  const end: Buffer[] = [];
  const n = entries.length;
  if (n > 0xfffe) {
    const z64 = Buffer.alloc(56);
    z64.writeUInt32LE(0x06064b50, 0);
    z64.writeBigUInt64LE(44n, 4);
    z64.writeUInt16LE(45, 12);
    z64.writeUInt16LE(45, 14);
    z64.writeBigUInt64LE(BigInt(n), 24);
    z64.writeBigUInt64LE(BigInt(n), 32);
    z64.writeBigUInt64LE(BigInt(cd.length), 40);
    z64.writeBigUInt64LE(BigInt(offset), 48);
    const loc = Buffer.alloc(20);
    loc.writeUInt32LE(0x07064b50, 0);
    loc.writeBigUInt64LE(BigInt(offset + cd.length), 8);
    loc.writeUInt32LE(1, 16);
    end.push(z64, loc);
  }
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(Math.min(n, 0xffff), 8);
  eocd.writeUInt16LE(Math.min(n, 0xffff), 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...local, cd, ...end, eocd]);
}

const stored = (name: string, text: string): RawEntry => {
  const data = Buffer.from(text);
  return { name, data, method: 0, crc: zlib.crc32(data), size: data.length };
};

/** `size` bytes of one repeated byte, deflated in 1 MB steps (never held whole): ~100 KB per 100 MB. */
async function deflatedRunAsync(size: number, byte: number): Promise<{ data: Buffer; crc: number }> {
  const chunk = Buffer.alloc(MB, byte);
  let crc = 0;
  const d = zlib.createDeflateRaw({ level: 9 });
  const parts: Buffer[] = [];
  d.on('data', (c: Buffer) => parts.push(c));
  const done = new Promise((resolve) => d.on('end', resolve));
  for (let n = 0; n < size; n += MB) {
    crc = zlib.crc32(chunk, crc);
    if (!d.write(chunk)) await new Promise((r) => d.once('drain', r));
  }
  d.end();
  await done;
  return { data: Buffer.concat(parts), crc };
}

const files = (parts: Part[]) => multipart(parts);
const annotations = (zip: Buffer) => multipart([{ field: 'file', filename: 'ann.zip', data: zip }]);

describe('no upload stalls the server (event-loop delay under 200 ms, memory bounded)', () => {
  it('a 16384x16000 1-bit BMP (32 MB) is refused from its header', async () => {
    const stride = Math.floor((16384 + 31) / 32) * 4;
    const r = await measure(uploadUrl(m.id), files([{ filename: 'huge.bmp', data: bmpOf(16384, 16000, 1, 2, stride * 16000) }]));
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ accepted: 0, results: [{ name: 'huge.bmp', status: 'refused', code: Errors.imageTooManyPixels.code, message: 'The image is 16384 × 16000 pixels: more than the 100 megapixels allowed.' }] });
    expect(r.stallMs).toBeLessThan(STALL_MS);
  });

  it('a BMP header claiming 16384x16384 on a 1 KB body is refused before anything is decoded', async () => {
    const r = await measure(uploadUrl(m.id), files([{ filename: 'bomb.bmp', data: bmpOf(16384, 16384, 8, 256, 1024) }]));
    expect(r.body.data).toMatchObject({ results: [{ status: 'refused', code: Errors.imageTooManyPixels.code }] });
    // Allowed dimensions but a body shorter than they need: refused as corrupt without decoding either.
    const short = await measure(uploadUrl(m.id), files([{ filename: 'short.bmp', data: bmpOf(8000, 8000, 8, 256, 1024) }]));
    expect(short.body.data).toMatchObject({ results: [{ status: 'refused', code: Errors.fileCheckFailed.code }] });
    expect(Math.max(r.stallMs, short.stallMs)).toBeLessThan(STALL_MS);
  });

  it('a PNG whose header claims 12000x12000 (144 MP) on a few bytes is refused before sharp decodes it', async () => {
    const chunk = (type: string, data: Buffer) => {
      const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
      const len = Buffer.alloc(4);
      len.writeUInt32BE(data.length);
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(zlib.crc32(body));
      return Buffer.concat([len, body, crc]);
    };
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(12000, 0);
    ihdr.writeUInt32BE(12000, 4);
    ihdr.set([8, 2, 0, 0, 0], 8);
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(Buffer.alloc(64 * 1024))), chunk('IEND', Buffer.alloc(0))]);
    const r = await measure(uploadUrl(m.id), files([{ filename: 'bomb.png', data: png }]));
    expect(r.body.data).toMatchObject({ results: [{ status: 'refused', code: Errors.imageTooManyPixels.code, message: 'The image is 12000 × 12000 pixels: more than the 100 megapixels allowed.' }] });
    expect(r.stallMs).toBeLessThan(STALL_MS);
  });

  it('a big but allowed 8-bit BMP (6000x5000, 30 MB, every pixel checked) is decoded off the event loop', async () => {
    const width = 6000;
    const height = 5000;
    const img = bmpOf(width, height, 8, 16, width * height);
    for (let y = 0; y < height; y++) img.fill(Math.floor((y / height) * 16), img.length - (y + 1) * width, img.length - y * width);
    let n = 0;
    // A fresh pixel per try: the same bytes again would be answered as a duplicate without decoding.
    const r = await measure(uploadUrl(m.id), () => {
      img[img.length - 1 - n++] = 15;
      return files([{ filename: 'big.bmp', data: img }]);
    });
    expect(r.body.data).toMatchObject({ accepted: 1, results: [{ name: 'big.bmp', status: 'accepted' }] });
    expect(r.stallMs).toBeLessThan(STALL_MS);
    expect(r.rssGrowthMb).toBeLessThan(300);
    // The thumbnail is drawn from the worker's sample: 256 px wide, green (palette 0) at the top, reddish at the bottom.
    const list = await t.app.inject({ url: `/api/models/${m.id}/images?pageSize=200`, headers: { 'x-token': token } });
    const item = (list.json() as { data: { items: { name: string; thumbnailUrl: string }[] } }).data.items.find((i) => i.name === 'big.bmp')!;
    const thumb = await t.app.inject({ url: item.thumbnailUrl, headers: { 'x-token': token } });
    const { data, info } = await sharp(thumb.rawPayload).raw().toBuffer({ resolveWithObject: true });
    expect(info.width).toBe(256);
    expect(Math.abs(info.height - (256 * height) / width)).toBeLessThan(1);
    const px = (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)];
    const [r0, g0] = px(128, 2);
    const [r1, g1] = px(128, info.height - 3);
    expect(g0! - r0!).toBeGreaterThan(200);
    expect(r1! - g1!).toBeGreaterThan(150);
    // One pixel past the 16-colour palette makes it corrupt: the worker reads every row to find it.
    img[img.length - 1] = 16;
    const bad = await measure(uploadUrl(m.id), files([{ filename: 'bad.bmp', data: img }]));
    expect(bad.body.data).toMatchObject({ results: [{ status: 'refused', code: Errors.fileCheckFailed.code }] });
    expect(bad.stallMs).toBeLessThan(STALL_MS);
  });

  it('a ZIP bomb (9 entries of 100 MB in 1 MB) is refused by name after a few MB', async () => {
    const run = await deflatedRunAsync(100 * MB, 0x20);
    const honest = rawZip(Array.from({ length: 9 }, (_, i) => ({ name: `bomb${i}.json`, data: run.data, method: 8 as const, crc: run.crc, size: 100 * MB })));
    expect(honest.length).toBeLessThan(MB);
    const r = await measure(zipUrl(m.id), annotations(honest));
    expect(r).toMatchObject({ status: 413, body: { code: Errors.annotationFileTooLarge.code, message: 'The annotation file "bomb0.json" is too large: at most 64 MB.' } });
    // Headers that claim 1 KB each: the inflated bytes are counted, and inflating stops at the limit.
    const lying = rawZip(Array.from({ length: 9 }, (_, i) => ({ name: `bomb${i}.json`, data: run.data, method: 8 as const, crc: run.crc, size: 1024 })));
    const l = await measure(zipUrl(m.id), annotations(lying));
    expect(l.status).toBe(413);
    expect([Errors.zipTooLarge.code, Errors.annotationFileTooLarge.code]).toContain(l.body.code);
    expect(Math.max(r.stallMs, l.stallMs)).toBeLessThan(STALL_MS);
    expect(Math.max(r.rssGrowthMb, l.rssGrowthMb)).toBeLessThan(300);
  });

  it('a COCO polygon of 2 million points is refused without stalling', async () => {
    const doc = `{"images":[{"id":1,"file_name":"a.jpg"}],"categories":[{"id":1,"name":"x"}],"annotations":[{"image_id":1,"category_id":1,"segmentation":[[${'1,'.repeat(4_000_000 - 1)}1]]}]}`;
    expect(doc.length).toBeLessThan(Limits.annotationFileMaxBytes);
    const data = zlib.deflateRawSync(doc);
    const zip = rawZip([{ name: 'coco.json', data, method: 8, crc: zlib.crc32(doc), size: Buffer.byteLength(doc) }]);
    const r = await measure(zipUrl(m.id), annotations(zip));
    expect(r.status).toBe(400);
    const results = (r.body.data as { results: { code: number; message: string }[] }).results;
    expect(results).toEqual([expect.objectContaining({ code: Errors.annotationTooManyPoints.code, message: 'The annotation file "coco.json" has a shape with more than 10000 points.' })]);
    expect(r.stallMs).toBeLessThan(STALL_MS);
  });

  it('a COCO mask of 100 megapixels (2,500 stripes, seconds of tracing) is traced without stalling', async () => {
    // Column-major runs from background: 2 columns off, 2 on, … over 10,000 × 10,000.
    const counts = [0, ...Array.from({ length: 5000 }, () => 20_000)];
    const doc = JSON.stringify({ images: [{ id: 1, file_name: 'a.jpg' }], categories: [{ id: 1, name: 'x' }], annotations: [{ id: 1, image_id: 1, category_id: 1, iscrowd: 1, segmentation: { size: [10_000, 10_000], counts } }] });
    const data = zlib.deflateRawSync(doc);
    const zip = rawZip([{ name: 'coco.json', data, method: 8, crc: zlib.crc32(doc), size: Buffer.byteLength(doc) }]);
    const r = await measure(zipUrl(m.id), annotations(zip));
    expect(r.status, r.body.message).toBeLessThan(500);
    expect(r.stallMs).toBeLessThan(STALL_MS);
  });

  it('a ZIP of 150,000 tiny entries is refused from its directory', async () => {
    const zip = rawZip(Array.from({ length: 150_000 }, (_, i) => stored(`labels/e${i}.txt`, '0 0.5 0.5 0.1 0.1')));
    const r = await measure(zipUrl(m.id), annotations(zip));
    expect(r).toMatchObject({ status: 413, body: { code: Errors.zipTooManyEntries.code, message: `The ZIP holds too many entries: at most ${Limits.zipMaxEntries}.` } });
    expect(r.stallMs).toBeLessThan(STALL_MS);
  });

  it('a ZIP of 10,000 small annotation files under the limits is processed without stalling', async () => {
    const entries = [stored('classes.txt', 'x'), stored('labels/a.txt', '0 0.5 0.5 0.2 0.2'), ...Array.from({ length: 10_000 }, (_, i) => stored(`labels/n${i}.txt`, '0 0.5 0.5 0.1 0.1'))];
    const r = await measure(zipUrl(m.id), annotations(rawZip(entries)));
    expect(r.status, r.body.message).toBe(200);
    expect(r.body.data).toMatchObject({ format: 'yolo', imagesMatched: 1, annotations: 1 });
    expect(r.stallMs).toBeLessThan(STALL_MS);
  });

  it('3,000 empty parts are each refused cheaply; more files than the limit are refused at once', async () => {
    const parts = Array.from({ length: 3000 }, (_, i) => ({ filename: `e${i}.jpg`, data: Buffer.alloc(0) }));
    const r = await measure(uploadUrl(m.id), files(parts));
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ accepted: 0, refused: 3000 });
    expect(r.stallMs).toBeLessThan(STALL_MS);
    const many = Array.from({ length: Limits.uploadMaxFiles + 1 }, (_, i) => ({ filename: `e${i}.jpg`, data: Buffer.alloc(0) }));
    const over = await measure(uploadUrl(m.id), files(many));
    expect(over).toMatchObject({ status: 413, body: { code: Errors.uploadTooManyFiles.code, message: `Too many files in one upload: at most ${Limits.uploadMaxFiles}.` } });
    expect(over.stallMs).toBeLessThan(STALL_MS);
  });

  it('a client that hangs up in the middle of a file leaves no temp file, and the server answers the next upload', async () => {
    const before = await m2Images();
    const { payload, headers } = files([
      { filename: 'whole.png', data: await draw('png', 64, 64, 5) },
      { filename: 'cut.bmp', data: bmpOf(600, 500, 8, 256, 300_000) },
    ]);
    // Half the body, then the socket is closed: the second part never ends.
    await new Promise<void>((resolve) => {
      const req = http.request(`${base}${uploadUrl(m.id)}`, {
        method: 'POST',
        headers: { ...headers, 'x-token': token, 'content-length': String(payload.length) },
      });
      req.on('error', () => resolve());
      req.write(payload.subarray(0, payload.length / 2), () => setTimeout(() => req.destroy(), 100));
    });
    await waitFor(() => fs.readdirSync(path.join(t.config.dataDir, 'blobs', 'tmp')).length === 0);
    expect(await m2Images()).toBe(before);
    const r = await measure(uploadUrl(m.id), files([{ filename: 'after.png', data: await draw('png', 64, 64, 6) }]));
    expect(r.body.data).toMatchObject({ accepted: 1 });
  });
});

async function m2Images(): Promise<number> {
  const r = await t.app.inject({ url: `/api/models/${m.id}`, headers: { 'x-token': token } });
  return (r.json() as { data: ModelData }).data.totalImages;
}

async function waitFor(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
  expect(ok()).toBe(true);
}

