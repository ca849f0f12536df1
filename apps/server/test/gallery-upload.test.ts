import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { Errors, type ImageListData, type ModelData, type UploadData } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { bmp, draw, newModel, pixels, send, uploadUrl, userToken } from './gallery-fixtures.js';

let t: TestApp;
let token: string;
const KB = 1024;
beforeAll(async () => {
  // Byte limits scaled down so the tests stay small; the rules are the same code paths.
  t = await startApp({
    gallery: { minSidePx: 32, maxSidePx: 2000, labelMax: 100, imageMaxBytes: 300 * KB, uploadMaxBytes: 900 * KB, zipMaxUncompressedBytes: 1024 * KB, zipEntryMaxBytes: 512 * KB, zipMaxEntries: 1000 },
  });
  token = await userToken(t.app);
});
afterAll(() => t.close());

const blobFiles = () => {
  const root = path.join(t.config.dataDir, 'blobs');
  return fs.readdirSync(root).filter((d) => d !== 'tmp').flatMap((d) => fs.readdirSync(path.join(root, d)));
};
const tmpFiles = () => fs.readdirSync(path.join(t.config.dataDir, 'blobs', 'tmp'));

describe('gallery upload rules (SPEC §5 images)', () => {
  it('accepts JPEG, PNG, BMP (24/32/8-bit, both row orders), TIFF and MPO by their bytes, with thumbnails', async () => {
    const m = await newModel(t.app, token);
    const mpoHead = await draw('jpeg', 80, 60, 9);
    // An MPO is a JPEG with an APP2 "MPF" segment right after SOI.
    const app2 = Buffer.concat([Buffer.from([0xff, 0xe2, 0x00, 0x0a]), Buffer.from('MPF\0'), Buffer.alloc(4)]);
    const mpo = Buffer.concat([mpoHead.subarray(0, 2), app2, mpoHead.subarray(2)]);
    const files = [
      { filename: 'a.jpg', data: await draw('jpeg', 120, 80, 1) },
      { filename: 'b.png', data: await draw('png', 100, 100, 2) },
      { filename: 'c.bmp', data: bmp(64, 48, { bpp: 24 }) },
      { filename: 'd.bmp', data: bmp(64, 48, { bpp: 32, topDown: true, seed: 3 }) },
      { filename: 'e.bmp', data: bmp(50, 40, { bpp: 8, seed: 4 }) },
      { filename: 'f.tiff', data: await draw('tiff', 90, 70, 5) },
      { filename: 'g.mpo', data: mpo },
      // the name says PNG, the bytes say JPEG: the bytes win
      { filename: 'h.png', data: await draw('jpeg', 70, 70, 6) },
    ];
    const r = await send(t.app, token, uploadUrl(m.id), files);
    expect(r.code, r.message).toBe(0);
    expect(r.data.results.map((x) => x.status)).toEqual(Array(8).fill('accepted'));
    const list = await call<ImageListData>(t.app, 'GET', `/api/models/${m.id}/images?pageSize=20`, undefined, { token });
    const byName = Object.fromEntries(list.data.items.map((i) => [i.name, i]));
    expect(byName['a.jpg']).toMatchObject({ kind: 'jpeg', width: 120, height: 80, split: 'none', starred: false, labeled: false, testState: 'untested' });
    expect(byName['c.bmp']).toMatchObject({ kind: 'bmp', width: 64, height: 48 });
    expect(byName['e.bmp']).toMatchObject({ kind: 'bmp', width: 50, height: 40 });
    expect(byName['f.tiff']?.kind).toBe('tiff');
    expect(byName['g.mpo']?.kind).toBe('mpo');
    expect(byName['h.png']?.kind).toBe('jpeg');
    // The BMP thumbnail shows the BMP's pixels (top row first, whatever the row order on disk).
    const thumb = await t.app.inject({ url: byName['d.bmp']!.thumbnailUrl, headers: { 'x-token': token } });
    expect(thumb.headers['content-type']).toBe('image/jpeg');
    const meta = await sharp(thumb.rawPayload).metadata();
    expect([meta.width, meta.height]).toEqual([64, 48]);
    const original = await t.app.inject({ url: byName['c.bmp']!.originalUrl, headers: { 'x-token': token } });
    expect(original.headers['content-type']).toBe('image/bmp');
    expect(original.rawPayload.equals(files[2]!.data)).toBe(true);
    expect((await t.app.inject({ url: byName['c.bmp']!.originalUrl })).statusCode).toBe(401);
    const other = await userToken(t.app);
    expect((await t.app.inject({ url: byName['c.bmp']!.originalUrl, headers: { 'x-token': other } })).statusCode).toBe(404);
  });

  it('decodes BMP rows and colours the right way round (bottom-up, top-down, palette)', async () => {
    const m = await newModel(t.app, token);
    // Top half red, bottom half blue; the 8-bit palette of the fixture maps index i to (i, 255 - i, i).
    const paint = (_x: number, y: number): [number, number, number] => (y < 24 ? [255, 0, 0] : [0, 0, 255]);
    const palette = (_x: number, y: number): [number, number, number] => (y < 24 ? [200, 0, 0] : [10, 0, 0]);
    const r = await send(t.app, token, uploadUrl(m.id), [
      { filename: 'up.bmp', data: bmp(64, 48, { paint }) },
      { filename: 'down.bmp', data: bmp(64, 48, { paint, topDown: true, bpp: 32 }) },
      { filename: 'pal.bmp', data: bmp(64, 48, { paint: palette, bpp: 8 }) },
    ]);
    expect(r.data.accepted).toBe(3);
    const list = await call<ImageListData>(t.app, 'GET', `/api/models/${m.id}/images`, undefined, { token });
    const pixel = async (name: string, y: number) => {
      const thumb = await t.app.inject({ url: list.data.items.find((i) => i.name === name)!.thumbnailUrl, headers: { 'x-token': token } });
      const { data, info } = await sharp(thumb.rawPayload).raw().toBuffer({ resolveWithObject: true });
      const o = (y * info.width + 32) * info.channels;
      return [data[o]!, data[o + 1]!, data[o + 2]!];
    };
    for (const name of ['up.bmp', 'down.bmp']) {
      const [top, bottom] = [await pixel(name, 4), await pixel(name, 44)];
      expect(top[0]! > 200 && top[2]! < 60, `${name} top ${top}`).toBe(true);
      expect(bottom[2]! > 200 && bottom[0]! < 60, `${name} bottom ${bottom}`).toBe(true);
    }
    const [pt, pb] = [await pixel('pal.bmp', 4), await pixel('pal.bmp', 44)];
    expect(pt[0]! > 170 && pt[1]! < 90, `palette top ${pt}`).toBe(true);
    expect(pb[0]! < 40 && pb[1]! > 210, `palette bottom ${pb}`).toBe(true);
  });

  it('accepts WebP (lossy, and lossless with alpha) by its bytes, stores the upload as sent and serves a thumbnail', async () => {
    const m = await newModel(t.app, token);
    // Left half red, right half blue, so the thumbnail shows the picture and not just any decodable bytes.
    const rgba = Buffer.alloc(96 * 64 * 4);
    for (let i = 0; i < 96 * 64; i++) rgba.set(i % 96 < 48 ? [255, 0, 0, 255] : [0, 0, 255, 128], i * 4);
    const lossy = await sharp(pixels(120, 80, 21), { raw: { width: 120, height: 80, channels: 3 } }).webp({ quality: 70 }).toBuffer();
    const lossless = await sharp(rgba, { raw: { width: 96, height: 64, channels: 4 } }).webp({ lossless: true }).toBuffer();
    // the name says JPEG, the bytes say WebP: the bytes win
    const r = await send(t.app, token, uploadUrl(m.id), [
      { filename: 'lossy.webp', data: lossy },
      { filename: 'alpha.webp', data: lossless },
      { filename: 'named.jpg', data: await sharp(pixels(64, 64, 22), { raw: { width: 64, height: 64, channels: 3 } }).webp().toBuffer() },
    ]);
    expect(r.data.results.map((x) => x.status)).toEqual(['accepted', 'accepted', 'accepted']);
    const list = await call<ImageListData>(t.app, 'GET', `/api/models/${m.id}/images`, undefined, { token });
    const byName = Object.fromEntries(list.data.items.map((i) => [i.name, i]));
    expect(byName['lossy.webp']).toMatchObject({ kind: 'webp', width: 120, height: 80 });
    expect(byName['alpha.webp']).toMatchObject({ kind: 'webp', width: 96, height: 64 });
    expect(byName['named.jpg']?.kind).toBe('webp');
    const thumb = await t.app.inject({ url: byName['alpha.webp']!.thumbnailUrl, headers: { 'x-token': token } });
    expect(thumb.headers['content-type']).toBe('image/jpeg');
    const { data, info } = await sharp(thumb.rawPayload).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([96, 64]);
    const at = (x: number) => [...data.subarray((32 * info.width + x) * info.channels, (32 * info.width + x) * info.channels + 3)];
    expect(at(10)[0]! > 200 && at(10)[2]! < 60, `left ${at(10)}`).toBe(true);
    expect(at(80)[2]! > 60 && at(80)[0]! < 60, `right ${at(80)}`).toBe(true);
    const original = await t.app.inject({ url: byName['lossy.webp']!.originalUrl, headers: { 'x-token': token } });
    expect(original.headers['content-type']).toBe('image/webp');
    expect(original.rawPayload.equals(lossy)).toBe(true);
  });

  it('refuses each bad file with its catalogue reason and keeps the good ones', async () => {
    const m = await newModel(t.app, token);
    const good = await draw('png', 64, 64, 11);
    const corrupt = (await draw('jpeg', 200, 200, 12)).subarray(0, 600);
    const big = await sharp(pixels(400, 300, 13), { raw: { width: 400, height: 300, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
    const r = await send(t.app, token, uploadUrl(m.id), [
      { filename: 'good.png', data: good },
      { filename: 'copy.png', data: good },
      { filename: 'doc.gif', data: Buffer.from('GIF89a........................') },
      { filename: 'text.jpg', data: Buffer.from('just text, not an image at all') },
      { filename: 'broken.jpg', data: corrupt },
      { filename: 'wide.png', data: await draw('png', 600, 100, 14) },
      { filename: 'almost.png', data: await draw('png', 590, 100, 15) },
      { filename: 'tiny.png', data: await draw('png', 31, 40, 16) },
      { filename: 'huge.png', data: await draw('png', 2001, 400, 17) },
      { filename: 'big.png', data: big },
      { filename: 'empty.jpg', data: Buffer.alloc(0) },
    ], { lang: 'de' });
    expect(r.code).toBe(0);
    const got = Object.fromEntries(r.data.results.map((x) => [x.name, x]));
    expect(got['good.png']?.status).toBe('accepted');
    expect(got['almost.png']?.status).toBe('accepted');
    expect(got['copy.png']).toMatchObject({ status: 'refused', code: Errors.duplicateImage.code, message: 'Dieses Bild ist bereits im Modell.' });
    expect(got['doc.gif']?.code).toBe(Errors.onlyImageTypes.code);
    expect(got['text.jpg']?.code).toBe(Errors.onlyImageTypes.code);
    expect(got['broken.jpg']?.code).toBe(Errors.fileCheckFailed.code);
    expect(got['empty.jpg']?.code).toBe(Errors.fileCheckFailed.code);
    expect(got['wide.png']).toMatchObject({ code: Errors.aspectRatio.code, message: 'Das Seitenverhältnis muss unter 6:1 liegen.' });
    expect(got['tiny.png']).toMatchObject({ code: Errors.resolutionOutOfRange.code, message: 'Jede Bildseite muss 32 bis 2000 Pixel lang sein.' });
    expect(got['huge.png']?.code).toBe(Errors.resolutionOutOfRange.code);
    expect(got['big.png']?.code).toBe(Errors.imageTooLarge.code);
    expect(r.data).toMatchObject({ accepted: 2, refused: 9 });
    // A second request with the same bytes is a duplicate too (content hash within the project)...
    const again = await send(t.app, token, uploadUrl(m.id), [{ filename: 'renamed.png', data: good }]);
    expect(again.data.results[0]?.code).toBe(Errors.duplicateImage.code);
    // ...but another project may hold the same image.
    const m2 = await newModel(t.app, token);
    expect((await send(t.app, token, uploadUrl(m2.id), [{ filename: 'good.png', data: good }])).data.accepted).toBe(1);
    expect(tmpFiles()).toEqual([]);
  });

  it('refuses a request over the total limit and stores nothing from it', async () => {
    const m = await newModel(t.app, token);
    const before = blobFiles().length;
    const parts = await Promise.all([1, 2, 3, 4].map(async (i) => ({ filename: `${i}.png`, data: await sharp(pixels(300, 300, 100 + i), { raw: { width: 300, height: 300, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer() })));
    // each ~270 KB: under the image limit; four of them are over the 900 KB request limit
    const r = await send(t.app, token, uploadUrl(m.id), parts, { lang: 'ru' });
    expect(r).toMatchObject({ status: 413, code: Errors.uploadTooLarge.code, message: 'Общий размер загрузки больше 500 МБ.' });
    expect((await call<ModelData>(t.app, 'GET', `/api/models/${m.id}`, undefined, { token })).data.totalImages).toBe(0);
    expect(blobFiles().length).toBe(before);
    expect(tmpFiles()).toEqual([]);
  });

  it('a request that breaks off leaves no rows, blobs or temp files', async () => {
    const m = await newModel(t.app, token);
    const before = blobFiles().length;
    const r = await send(t.app, token, uploadUrl(m.id), [
      { filename: 'x1.png', data: await draw('png', 64, 64, 201) },
      { filename: 'x2.png', data: await draw('png', 64, 64, 202) },
      { filename: 'x3.png', data: (await draw('png', 64, 64, 203)).subarray(0, 100) },
    ], { truncate: true });
    expect(r.code).toBe(Errors.uploadFailed.code);
    expect((await call<ModelData>(t.app, 'GET', `/api/models/${m.id}`, undefined, { token })).data.totalImages).toBe(0);
    expect(blobFiles().length).toBe(before);
    expect(tmpFiles()).toEqual([]);
  });

  it('a transaction that fails takes back the blobs the request wrote', async () => {
    const m = await newModel(t.app, token);
    const db = t.app.deps.db;
    const { sql } = await import('kysely');
    // Make the database refuse one row, as a full disk or a lost connection would, mid-transaction.
    if (process.env.DATABASE_URL) {
      await sql`create function loupe_boom() returns trigger as $$ begin if new.name = 'boom.png' then raise exception 'boom'; end if; return new; end $$ language plpgsql`.execute(db);
      await sql`create trigger images_boom before insert on images for each row execute function loupe_boom()`.execute(db);
    } else {
      await sql`create trigger images_boom before insert on images when new.name = 'boom.png' begin select raise(abort, 'boom'); end`.execute(db);
    }
    try {
      const before = blobFiles().length;
      const r = await send(t.app, token, uploadUrl(m.id), [
        { filename: 'fine.png', data: await draw('png', 64, 64, 301) },
        { filename: 'boom.png', data: await draw('png', 64, 64, 302) },
      ]);
      expect(r).toMatchObject({ status: 400, code: Errors.uploadFailed.code });
      expect((await call<ModelData>(t.app, 'GET', `/api/models/${m.id}`, undefined, { token })).data.totalImages).toBe(0);
      expect(blobFiles().length).toBe(before);
    } finally {
      await sql`drop trigger images_boom${process.env.DATABASE_URL ? sql` on images` : sql``}`.execute(db);
    }
  });

  it('answers uploadFailed for a request without files and notFound for another account\'s model', async () => {
    const m = await newModel(t.app, token);
    expect((await send(t.app, token, uploadUrl(m.id), [])).code).toBe(Errors.uploadFailed.code);
    const other = await userToken(t.app);
    expect((await send(t.app, other, uploadUrl(m.id), [{ filename: 'a.png', data: await draw('png', 40, 40, 1) }])).code).toBe(Errors.notFound.code);
  });

  it('shows the 30-image hint until the model has 30 images, and deleting the model removes unshared blobs', async () => {
    const m = await newModel(t.app, token);
    const files = await Promise.all(Array.from({ length: 30 }, async (_, i) => ({ filename: `p${i}.png`, data: await draw('png', 40, 40, 500 + i) })));
    const first = await send<UploadData>(t.app, token, uploadUrl(m.id), files.slice(0, 29));
    expect(first.data.accepted).toBe(29);
    expect((await call<ModelData>(t.app, 'GET', `/api/models/${m.id}`, undefined, { token })).data.belowRecommendedImages).toBe(true);
    await send(t.app, token, uploadUrl(m.id), files.slice(29));
    expect((await call<ModelData>(t.app, 'GET', `/api/models/${m.id}`, undefined, { token })).data).toMatchObject({ totalImages: 30, belowRecommendedImages: false });
    // the same first image also lives in a second model: its blob must survive the delete
    const keep = await newModel(t.app, token);
    await send(t.app, token, uploadUrl(keep.id), [files[0]!]);
    const before = blobFiles().length;
    const del = await t.app.inject({ method: 'DELETE', url: `/api/models/${m.id}`, headers: { 'x-token': token } });
    expect(del.json()).toMatchObject({ code: 0 });
    // 29 originals and 29 thumbnails go; the shared original and its thumbnail stay
    expect(blobFiles().length).toBe(before - 58);
    const kept = await call<ImageListData>(t.app, 'GET', `/api/models/${keep.id}/images`, undefined, { token });
    expect((await t.app.inject({ url: kept.data.items[0]!.originalUrl, headers: { 'x-token': token } })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/api/models/${m.id}`, undefined, { token })).code).toBe(Errors.notFound.code);
  });
});
