import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors, type AnnotationImportData, type ModelData } from '@loupe/contracts';
import { startApp, type TestApp } from './helper.js';
import { draw, newModel, send, uploadUrl, userToken, zip, zipUrl, type ZipEntry } from './gallery-fixtures.js';

let t: TestApp;
let token: string;
let m: ModelData;
const KB = 1024;
const coco = JSON.stringify({
  images: [{ id: 1, file_name: 'a.jpg' }],
  categories: [{ id: 1, name: 'x' }],
  annotations: [{ image_id: 1, category_id: 1, bbox: [1, 1, 10, 10] }],
});

beforeAll(async () => {
  t = await startApp({
    gallery: { minSidePx: 32, maxSidePx: 16384, labelMax: 100, imageMaxBytes: 512 * KB, uploadMaxBytes: 1024 * KB, zipMaxUncompressedBytes: 256 * KB, zipEntryMaxBytes: 128 * KB, zipMaxEntries: 50 },
  });
  token = await userToken(t.app);
  m = await newModel(t.app, token, 'DETECTION');
  await send(t.app, token, uploadUrl(m.id), [{ filename: 'a.jpg', data: await draw('jpeg', 64, 64, 1) }]);
});
afterAll(() => t.close());

const upload = async (entries: ZipEntry[] | Buffer, lang?: string) =>
  send<AnnotationImportData>(t.app, token, zipUrl(m.id), [{ field: 'file', filename: 'a.zip', data: Buffer.isBuffer(entries) ? entries : await zip(entries) }], lang ? { lang } : {});

/** yazl refuses unsafe names, so write a safe one and rename it in both headers (same length). */
async function zipWithName(name: string): Promise<Buffer> {
  const placeholder = 'x'.repeat(name.length);
  const buf = await zip([{ path: placeholder, data: coco }]);
  let at = buf.indexOf(placeholder);
  while (at >= 0) {
    buf.write(name, at, 'latin1');
    at = buf.indexOf(placeholder, at + 1);
  }
  return buf;
}

describe('annotation ZIP safety (zip slip, links, zip bombs)', () => {
  it.each(['../evil.json', 'a/../../evil.json', '/etc/evil.json', 'C:/evil.json'])('refuses the entry %s', async (name) => {
    const r = await upload(await zipWithName(name), 'de');
    expect(r.code).toBe(Errors.zipUnsafeEntry.code);
    expect(r.message).toContain('nicht erlaubt');
    expect(fs.existsSync(path.join(t.config.dataDir, 'evil.json'))).toBe(false);
  });

  it('refuses symlinks', async () => {
    const r = await upload([{ path: 'link.json', data: '/etc/passwd', mode: 0o120777 }, { path: 'x.json', data: coco }]);
    expect(r).toMatchObject({ status: 400, code: Errors.zipUnsafeEntry.code, message: 'The ZIP entry "link.json" is not allowed (absolute path, ".." or link).' });
  });

  it('refuses an entry or a total over the limits by declared size', async () => {
    // 200 KB of zeros compresses to almost nothing: the declared size gives it away
    const big = await upload([{ path: 'big.json', data: Buffer.alloc(200 * KB) }], 'ru');
    expect(big).toMatchObject({ status: 413, code: Errors.zipTooLarge.code, message: 'ZIP-архив слишком велик после распаковки.' });
    const many = await upload([1, 2, 3].map((i) => ({ path: `p${i}.json`, data: Buffer.alloc(100 * KB) })));
    expect(many.code).toBe(Errors.zipTooLarge.code);
    const count = await upload(Array.from({ length: 51 }, (_, i) => ({ path: `e${i}.txt`, data: 'x' })));
    expect(count).toMatchObject({ status: 413, code: Errors.zipTooManyEntries.code, message: 'The ZIP holds too many entries: at most 50.' });
  });

  it('counts inflated bytes too: an entry that lies about its size is refused', async () => {
    const honest = await zip([{ path: 'x.json', data: Buffer.alloc(200 * KB, 0x20) }]);
    // Rewrite the declared uncompressed size (local header offset 22, central directory offset 24) to 1 KB.
    const local = honest.indexOf(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
    honest.writeUInt32LE(1024, local + 22);
    const central = honest.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    honest.writeUInt32LE(1024, central + 24);
    const r = await upload(honest);
    expect(r).toMatchObject({ status: 413, code: Errors.zipTooLarge.code });
  });

  it('still imports a well-formed ZIP under the limits', async () => {
    const r = await upload([{ path: 'x.json', data: coco }]);
    expect(r).toMatchObject({ code: 0, data: { annotations: 1 } });
    expect(fs.readdirSync(path.join(t.config.dataDir, 'blobs', 'tmp'))).toEqual([]);
  });
});
