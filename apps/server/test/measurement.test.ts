import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  judgeImage,
  MeasureFields,
  type CalibrationData,
  type Geometry,
  type GoldenJobData,
  type LabelData,
  type MeasurementImagesData,
  type ObjectMeasure,
  type PackStatusData,
  type TestRunData,
  type Tolerances,
  type TolerancesData,
  type UploadData,
} from '@loupe/contracts';
import { call, startApp, type Reply, type TestApp } from './helper.js';
import { newModel, send, uploadUrl } from './gallery-fixtures.js';
import { save } from './labeling-fixtures.js';
import { SAME_ON_EVERY_HOST, start, waitFor } from './training-fixtures.js';
import { downloader, waitForPack } from './delivery-fixtures.js';
import { drawnOf, runImages, shapesModel, splitImages, testRun, trainedBarsModel } from './task-fixtures.js';
import { measureRbox } from '../src/services/measurement/fields.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../..');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-measure-'));

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startApp();
  ({ token } = await downloader(t.app));
});
afterAll(async () => {
  await t.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/** Polls a golden-sample job until it ends; it must succeed. */
async function goldenDone(modelId: number, jobId: number): Promise<GoldenJobData> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await call<GoldenJobData>(t.app, 'GET', `/api/models/${modelId}/measurement/golden/${jobId}`, undefined, { token });
    expect(r.code, r.message).toBe(0);
    if (!['queued', 'running'].includes(r.data.status)) {
      expect(r.data.status, r.data.error ?? '').toBe('succeeded');
      return r.data;
    }
    if (Date.now() > deadline) throw new Error(`golden job ${jobId} stuck in ${r.data.status}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** The engine's `measure` command on a COCO file (no model: it measures the labels), with tolerances. */
async function engineMeasure(coco: object, tolerances?: object, mmPerPx?: number) {
  const dir = fs.mkdtempSync(path.join(work, 'engine-'));
  fs.writeFileSync(path.join(dir, 'data.json'), JSON.stringify(coco));
  const args = ['-m', 'loupe_engine', 'measure', '--data', 'data.json', '--out', 'm.json'];
  if (tolerances) args.push('--tolerances', JSON.stringify(tolerances));
  if (mmPerPx) args.push('--mm-per-px', String(mmPerPx));
  await run('/usr/bin/python3', args, { cwd: dir, env: { PATH: process.env.PATH, PYTHONPATH: path.join(ROOT, 'engine'), OMP_WAIT_POLICY: 'PASSIVE' } });
  return JSON.parse(fs.readFileSync(path.join(dir, 'm.json'), 'utf8')) as {
    images: { image_id: number; ok: boolean; count: number; objects: { category_id: number; measure: ObjectMeasure; failed: string[] }[] }[];
  };
}

/** Our tolerances in the engine's format (classes by name; bounds left out are absent, not null). */
function engineTolerances(tol: Tolerances, names: Record<number, string>) {
  const range = (r: { min?: number | null; max?: number | null } | null | undefined) =>
    r ? Object.fromEntries(Object.entries(r).filter(([, v]) => v !== null && v !== undefined)) : undefined;
  return {
    ...(tol.count ? { count: range(tol.count) } : {}),
    classes: Object.fromEntries(
      tol.labels.map((l) => [names[l.labelId]!, { ...(l.count ? { count: range(l.count) } : {}), fields: Object.fromEntries(Object.entries(l.fields).map(([f, r]) => [f, range(r)])) }]),
    ),
  };
}

const del = async <T>(app: FastifyInstance, url: string): Promise<Reply<T>> => {
  const res = await app.inject({ method: 'DELETE', url, headers: { 'x-token': token } });
  return { status: res.statusCode, ...(res.json() as { code: number; message: string; data: T }) };
};
const calibrationUrl = (id: number) => `/api/models/${id}/measurement/calibration`;
const tolerancesUrl = (id: number) => `/api/models/${id}/measurement/tolerances`;
const resultsUrl = (id: number, testId: number, q = '') => `/api/models/${id}/tests/${testId}/measurements${q}`;

describe('the engine’s definitions in TypeScript', () => {
  // Rotated boxes of both orientations, negative and large angles, and polygons the engine measures itself.
  const rboxes = [
    [20, 30, 30, 10, 0],
    [40, 22, 10, 30, 15],
    [33.3, 18.7, 24.5, 12.25, -30],
    [50, 50, 12, 12, 45],
    [25, 40, 8, 28, 120],
    [60, 20, 30, 14, 179.5],
  ];
  const coco = {
    images: [1, 2, 3].map((id) => ({ id, file_name: `${id}.png`, width: 100, height: 100 })),
    categories: [
      { id: 1, name: 'bar' },
      { id: 2, name: 'plate' },
    ],
    annotations: [
      ...rboxes.map((r, i) => ({ id: i + 1, image_id: (i % 3) + 1, category_id: 1, bbox: [0, 0, 1, 1], rbox: r })),
      { id: 20, image_id: 1, category_id: 2, bbox: [10, 10, 20, 10], segmentation: [[10, 10, 30, 10, 30, 20, 10, 20]] },
      { id: 21, image_id: 3, category_id: 2, bbox: [50, 60, 30, 20], segmentation: [[50, 60, 80, 62, 78, 80, 52, 78]] },
    ],
  };
  const names = { 1: 'bar', 2: 'plate' };

  it('measures a rotated box as the engine does (all six fields, 0.001 px)', async () => {
    const m = await engineMeasure(coco);
    const bars = m.images.flatMap((i) => i.objects.filter((o) => o.category_id === 1));
    const byImage = [0, 1, 2].flatMap((k) => rboxes.filter((_, i) => i % 3 === k));
    expect(bars).toHaveLength(rboxes.length);
    bars.forEach((o, i) => {
      const [cx, cy, w, h, a] = byImage[i]!;
      const ours = measureRbox(cx!, cy!, w!, h!, a!);
      for (const f of MeasureFields) expect(Math.abs(ours[f] - o.measure[f]), `${f} of ${byImage[i]}`).toBeLessThanOrEqual(1e-9 + 0.001);
    });
  });

  it('judges OK/NG like the engine: per-label fields, angle ranges wrapping past 180°, per-label and total counts', async () => {
    const cases: Tolerances[] = [
      { unit: 'px', count: { min: 2, max: 3 }, labels: [{ labelId: 1, fields: { major_axis: { min: 25, max: 31 }, angle: { min: 170, max: 20 } } }] },
      { unit: 'px', count: null, labels: [{ labelId: 2, count: { min: 1, max: 1 }, fields: { area: { min: 150, max: null }, centroid_x: { min: null, max: 25 } } }] },
      { unit: 'px', labels: [{ labelId: 1, count: { max: 1 }, fields: { minor_axis: { min: 10 } } }, { labelId: 2, fields: { angle: { min: 0, max: 5 } } }] },
    ];
    let ng = 0;
    for (const tol of cases) {
      const m = await engineMeasure(coco, engineTolerances(tol, names));
      for (const img of m.images) {
        const ours = judgeImage(img.objects.map((o) => ({ labelId: o.category_id, values: o.measure })), tol);
        expect(ours.ok, `image ${img.image_id} of ${JSON.stringify(tol)}`).toBe(img.ok);
        expect(ours.failed.map((f) => [...f].sort())).toEqual(img.objects.map((o) => [...o.failed].sort()));
        if (!img.ok) ng += 1;
      }
    }
    // The cases are only a test if both verdicts occur.
    expect(ng).toBeGreaterThan(0);
    expect(ng).toBeLessThan(9);
  });
});

describe('calibration and tolerances', () => {
  let modelId: number;
  let imageId: number;
  let labels: Record<string, number>;

  it('only MEASURE models have them', async () => {
    const other = await newModel(t.app, token, 'DETECTION');
    const r = await call(t.app, 'GET', calibrationUrl(other.id), undefined, { token });
    expect(r.code).toBe(30026);
    const m = await newModel(t.app, token, 'MEASURE');
    modelId = m.id;
    const png = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#222' } }).png().toBuffer();
    const up = await send<UploadData>(t.app, token, uploadUrl(modelId), [{ filename: 'ruler.png', data: png }]);
    imageId = up.data.results[0]!.imageId!;
    labels = {};
    for (const name of ['bolt', 'nut']) labels[name] = (await call<LabelData>(t.app, 'POST', `/api/models/${modelId}/labels`, { name }, { token })).data.id;
  });

  it('starts uncalibrated, takes a typed scale or a drawn line, and goes back to pixels', async () => {
    expect((await call<CalibrationData>(t.app, 'GET', calibrationUrl(modelId), undefined, { token })).data).toEqual({ mmPerPx: null, line: null, updatedAt: null });
    const typed = await call<CalibrationData>(t.app, 'PUT', calibrationUrl(modelId), { mmPerPx: 0.05 }, { token });
    expect(typed.code, typed.message).toBe(0);
    expect(typed.data).toMatchObject({ mmPerPx: 0.05, line: null });
    // An oblique line (90 px across, 80 down) that is 30 mm long.
    const line = { imageId, x1: 10, y1: 10, x2: 100, y2: 90, lengthMm: 30 };
    const drawn = await call<CalibrationData>(t.app, 'PUT', calibrationUrl(modelId), { line }, { token });
    expect(drawn.code, drawn.message).toBe(0);
    const px = Math.hypot(90, 80);
    expect(drawn.data.mmPerPx).toBeCloseTo(30 / px, 12);
    expect(drawn.data.line).toMatchObject({ imageId, lengthMm: 30 });
    expect(drawn.data.line!.lengthPx).toBeCloseTo(px, 9);
    expect((await call<CalibrationData>(t.app, 'GET', calibrationUrl(modelId), undefined, { token })).data.mmPerPx).toBeCloseTo(30 / px, 12);
    const gone = await del<CalibrationData>(t.app, calibrationUrl(modelId));
    expect(gone.data).toMatchObject({ mmPerPx: null, line: null });
  });

  it('refuses bad scales and lines in the caller’s language and keeps the saved one', async () => {
    await call(t.app, 'PUT', calibrationUrl(modelId), { mmPerPx: 0.1 }, { token });
    const line = { imageId, x1: 10, y1: 10, x2: 50, y2: 10, lengthMm: 5 };
    const bad: [Record<string, unknown>, string, string][] = [
      [{ mmPerPx: 0 }, 'en', 'Invalid value for Scale (mm per pixel): must be a positive number'],
      [{ mmPerPx: -2 }, 'de', 'Ungültiger Wert für Maßstab (mm pro Pixel): muss eine positive Zahl sein'],
      [{ mmPerPx: 1, line }, 'en', 'give either a typed scale or a drawn line, not both'],
      [{}, 'en', 'give either a typed scale or a drawn line, not both'],
      [{ line: { ...line, lengthMm: 0 } }, 'ru', 'Недопустимое значение поля Длина линии (мм): должно быть положительным числом'],
      [{ line: { ...line, x2: 10 } }, 'zh', '标定线段 的值无效：线段长度为零'],
      [{ line: { ...line, x2: 250 } }, 'en', 'the line leaves the image'],
      [{ line: { ...line, imageId: imageId + 1000 } }, 'en', 'Invalid value for Image'],
      [{ mmPerPx: 'x' }, 'en', 'Invalid value for'],
    ];
    for (const [body, lang, text] of bad) {
      const r = await call(t.app, 'PUT', calibrationUrl(modelId), body, { token, lang });
      expect([r.status, r.code], JSON.stringify(body)).toEqual([400, 20001]);
      expect(r.message).toContain(text);
    }
    expect((await call<CalibrationData>(t.app, 'GET', calibrationUrl(modelId), undefined, { token })).data.mmPerPx).toBe(0.1);
  });

  it('checks tolerances against the labels and the calibration, one message per problem', async () => {
    const bad: Tolerances = {
      unit: 'px',
      count: { min: 1.5, max: 3 },
      labels: [
        { labelId: labels.bolt!, count: { min: 2, max: 1 }, fields: { area: { min: 100, max: 50 }, angle: { min: 170, max: 200 } } },
        { labelId: 999_999, fields: {} },
      ],
    };
    const r = await call<{ problems: { field: string; reason: string; message: string }[] }>(t.app, 'PUT', tolerancesUrl(modelId), bad as never, { token, lang: 'de' });
    expect([r.status, r.code]).toEqual([400, 20001]);
    expect(r.data.problems.map((p) => p.reason)).toEqual(['integer', 'minAboveMax', 'minAboveMax', 'range', 'labelNotInModel']);
    expect(r.data.problems[2]!.message).toBe('Ungültiger Wert für bolt: Fläche Minimum: Minimum liegt über dem Maximum');
    expect(r.message).toBe(r.data.problems[0]!.message);
    // A wrapping angle range is fine; mm needs the calibration, which exists.
    const good: Tolerances = { unit: 'mm', count: { min: 1, max: 4 }, labels: [{ labelId: labels.bolt!, count: { min: 1, max: null }, fields: { major_axis: { min: 9.9, max: 10.1 }, angle: { min: 170, max: 10 } } }] };
    const saved = await call<TolerancesData>(t.app, 'PUT', tolerancesUrl(modelId), good as never, { token });
    expect(saved.code, saved.message).toBe(0);
    expect(saved.data.tolerances).toEqual(good);
    expect((await call<TolerancesData>(t.app, 'GET', tolerancesUrl(modelId), undefined, { token })).data.tolerances).toEqual(good);
    await del(t.app, calibrationUrl(modelId));
    const needs = await call(t.app, 'PUT', tolerancesUrl(modelId), good as never, { token, lang: 'zh' });
    expect(needs.message).toBe('单位 的值无效：使用毫米前需要先标定');
    const cleared = await del<TolerancesData>(t.app, tolerancesUrl(modelId));
    expect(cleared.data.tolerances).toBeNull();
  });

  it('golden samples need labeled images of the model and a margin of 0 to 100 %', async () => {
    const golden = `/api/models/${modelId}/measurement/golden`;
    expect((await call(t.app, 'POST', golden, { imageIds: [imageId], marginPct: 5 }, { token })).code).toBe(8001);
    expect((await call(t.app, 'POST', golden, { imageIds: [imageId + 1000], marginPct: 5 }, { token })).code).toBe(8001);
    const r = await call(t.app, 'POST', golden, { imageIds: [imageId], marginPct: 150 }, { token, lang: 'en' });
    expect([r.status, r.code, r.message]).toEqual([400, 20001, 'Invalid value for Margin (%): out of range']);
    expect((await call(t.app, 'POST', golden, { imageIds: [], marginPct: 5 }, { token })).code).toBe(20001);
  });
});

const SEG = { model: 'p', imgsz: 64, epochs: 4, batch: 8, mosaic: 0, workers: 0, warmup_epochs: 0, seed: 5, optimizer: 'AdamW', lr0: 0.01, ...SAME_ON_EVERY_HOST };

describe('a MEASURE model of polygons: a segmenter whose instances are measured', () => {
  let m: Awaited<ReturnType<typeof shapesModel>>;
  let tested: TestRunData;

  it('trains the segment task on polygon labels', async () => {
    m = await shapesModel(t.app, token, 'MEASURE', 36);
    await splitImages(t.app, token, m.model.id, m.images, { train: [0, 24], valid: [24, 30], test: [30, 36] });
    for (const [i, id] of m.images.entries()) {
      const d = drawnOf(i);
      expect((await save(t.app, token, { ...m, labels: m.labels }, id, 0, [{ labelId: m.labels[d.shape], geometry: { kind: 'polygon', points: d.polygon } }])).code).toBe(0);
    }
    const r = await start(t.app, token, m.model.id, SEG);
    expect(r.code, r.message).toBe(0);
    expect(r.data).toMatchObject({ task: 'segment', rotated: false });
    const done = await waitFor(t.app, token, m.model.id, r.data.id, (x) => !['queued', 'preparing', 'training'].includes(x.status), 60_000);
    expect(done.status, done.error ?? '').toBe('succeeded');
  }, 70_000);

  it('tests: each instance carries the engine’s fields, each image its count; unjudged without tolerances', async () => {
    tested = await testRun(t.app, token, m.model.id);
    expect(tested.status, tested.error ?? '').toBe('succeeded');
    const r = await call<MeasurementImagesData>(t.app, 'GET', resultsUrl(m.model.id, tested.id), undefined, { token });
    expect(r.code, r.message).toBe(0);
    expect(r.data).toMatchObject({ images: 6, total: 6, judged: false, ok: 0, ng: 0, unit: null, mmPerPx: null });
    const { items } = await runImages(t.app, token, m.model.id, tested.id);
    let close = 0;
    for (const img of r.data.items) {
      const same = items.find((i) => i.imageId === img.imageId)!;
      expect(img.count).toBe(same.predictions.length);
      expect(img.ok).toBeNull();
      const k = m.images.indexOf(img.imageId);
      const d = drawnOf(k);
      for (const o of img.objects) {
        expect(Object.keys(o.px).sort()).toEqual([...MeasureFields].sort());
        expect(o.px.major_axis).toBeGreaterThanOrEqual(o.px.minor_axis!);
        expect(o.mm).toBeNull();
        // An instance on the drawn shape measures it: its centroid within 2 px of the shape's centre.
        const cx = d.polygon.reduce((s, p) => s + p[0], 0) / d.polygon.length;
        const cy = d.polygon.reduce((s, p) => s + p[1], 0) / d.polygon.length;
        if (Math.hypot(o.px.centroid_x! - cx, o.px.centroid_y! - cy) < 2) close += 1;
      }
    }
    console.log(`measure (segment): ${r.data.items.reduce((n, i) => n + i.count, 0)} instances on 6 images, ${close} centred on their drawn shape`);
    expect(close).toBeGreaterThanOrEqual(3);
  }, 40_000);

  it('proposes tolerances from golden samples measured by the engine, and judges the run with them', async () => {
    // A job: the request answers at once with its id, the proposal comes with the job's end.
    const queued = await call<GoldenJobData>(t.app, 'POST', `/api/models/${m.model.id}/measurement/golden`, { imageIds: m.images.slice(0, 24), marginPct: 10 }, { token });
    expect(queued.code, queued.message).toBe(0);
    expect(queued.data).toMatchObject({ status: 'queued', result: null, error: null });
    const golden = { data: (await goldenDone(m.model.id, queued.data.jobId)).result! };
    expect(golden.data).toMatchObject({ images: 24, objects: 24, unit: 'px' });
    const disc = golden.data.stats.find((s) => s.labelId === m.labels.disc)!;
    // Discs are drawn 20 to 30 px across: the engine's polygon major axis sees that.
    expect(disc.fields.major_axis!.min).toBeGreaterThan(19);
    expect(disc.fields.major_axis!.max).toBeLessThan(31);
    const proposed = golden.data.proposal.labels.find((l) => l.labelId === m.labels.disc)!;
    expect(proposed.fields.major_axis!.min).toBeCloseTo(disc.fields.major_axis!.min * 0.9, 3);
    expect(proposed.count).toEqual({ min: 0, max: 1 });
    expect(golden.data.proposal.count).toEqual({ min: 1, max: 1 });

    const saved = await call<TolerancesData>(t.app, 'PUT', tolerancesUrl(m.model.id), golden.data.proposal as never, { token });
    expect(saved.code, saved.message).toBe(0);
    const all = (await call<MeasurementImagesData>(t.app, 'GET', resultsUrl(m.model.id, tested.id), undefined, { token })).data;
    expect(all.judged).toBe(true);
    expect(all.ok + all.ng).toBe(6);
    for (const img of all.items) {
      // The verdict is the contract's judge of the shown values: nothing else decides it.
      const again = judgeImage(img.objects.map((o) => ({ labelId: o.labelId, values: o.px as ObjectMeasure })), golden.data.proposal);
      expect(img.ok).toBe(again.ok);
      expect(img.failures).toEqual(again.failures);
      if (img.count !== 1) expect(img.failures.some((f) => f.kind === 'count' && f.labelId === null)).toBe(true);
    }
    // A count no image can meet makes every image NG, with the reason; the filters split the run.
    await call(t.app, 'PUT', tolerancesUrl(m.model.id), { ...golden.data.proposal, count: { min: 5, max: null } }, { token });
    const ng = (await call<MeasurementImagesData>(t.app, 'GET', resultsUrl(m.model.id, tested.id, '?verdict=ng&pageSize=4'), undefined, { token })).data;
    expect([ng.ng, ng.ok, ng.total, ng.items.length]).toEqual([6, 0, 6, 4]);
    for (const img of ng.items) expect(img.failures).toContainEqual(expect.objectContaining({ kind: 'count', labelId: null, range: { min: 5, max: null } }));
    const okOnly = (await call<MeasurementImagesData>(t.app, 'GET', resultsUrl(m.model.id, tested.id, '?verdict=ok'), undefined, { token })).data;
    expect(okOnly.total).toBe(0);
  }, 40_000);

  it('shows mm and mm² beside pixels once calibrated, and judges mm tolerances in mm', async () => {
    const s = 0.25;
    expect((await call(t.app, 'PUT', calibrationUrl(m.model.id), { mmPerPx: s }, { token })).code).toBe(0);
    const r = (await call<MeasurementImagesData>(t.app, 'GET', resultsUrl(m.model.id, tested.id), undefined, { token })).data;
    const o = r.items.flatMap((i) => i.objects)[0]!;
    expect(o.mm!.area).toBeCloseTo(o.px.area! * s * s, 9);
    expect(o.mm!.major_axis).toBeCloseTo(o.px.major_axis! * s, 9);
    expect(o.mm!.angle).toBe(o.px.angle);
    // Every disc between 0 and 2 mm long (8 px): NG for each image with a disc found.
    await call(t.app, 'PUT', tolerancesUrl(m.model.id), { unit: 'mm', labels: [{ labelId: m.labels.disc, fields: { major_axis: { min: 0, max: 2 } } }] }, { token });
    const mm = (await call<MeasurementImagesData>(t.app, 'GET', resultsUrl(m.model.id, tested.id), undefined, { token })).data;
    expect(mm.unit).toBe('mm');
    for (const img of mm.items) {
      const discs = img.objects.filter((x) => x.labelId === m.labels.disc);
      expect(img.ok).toBe(discs.every((x) => x.mm!.major_axis! <= 2));
    }
    // Without the calibration, mm tolerances judge nothing.
    await del(t.app, calibrationUrl(m.model.id));
    const none = (await call<MeasurementImagesData>(t.app, 'GET', resultsUrl(m.model.id, tested.id), undefined, { token })).data;
    expect([none.judged, none.ok, none.ng]).toEqual([false, 0, 0]);
  });
});

describe('a MEASURE model of rotated boxes: an obb detector whose boxes are measured', () => {
  it('trains obb, measures each box by the engine’s definition, and exports', async () => {
    const { model } = await trainedBarsModel(t.app, token);

    const tested = await testRun(t.app, token, model.id, { settings: { conf: 0.05 } });
    expect(tested.status, tested.error ?? '').toBe('succeeded');
    const measured = (await call<MeasurementImagesData>(t.app, 'GET', resultsUrl(model.id, tested.id), undefined, { token })).data;
    const { items } = await runImages(t.app, token, model.id, tested.id);
    // The boxes the run recorded, measured again by the engine (its labels path measures rotated boxes).
    const boxes = items.flatMap((img) => img.predictions.map((p) => ({ imageId: img.imageId, g: p.geometry as Extract<Geometry, { kind: 'rbox' }> })));
    expect(boxes.length).toBeGreaterThan(0);
    const engine = await engineMeasure({
      images: items.map((i) => ({ id: i.imageId, file_name: i.name, width: 64, height: 64 })),
      categories: [{ id: 1, name: 'bar' }],
      annotations: boxes.map((b, k) => ({ id: k + 1, image_id: b.imageId, category_id: 1, bbox: [0, 0, 1, 1], rbox: [b.g.cx, b.g.cy, b.g.w, b.g.h, b.g.angle] })),
    });
    const ours = measured.items.flatMap((i) => i.objects);
    const theirs = engine.images.flatMap((i) => i.objects);
    expect(ours).toHaveLength(theirs.length);
    let worst = 0;
    ours.forEach((o, k) => {
      for (const f of MeasureFields) worst = Math.max(worst, Math.abs(o.px[f]! - theirs[k]!.measure[f]));
    });
    console.log(`measure (obb): ${ours.length} boxes on 4 images, largest difference to the engine ${worst.toFixed(4)} (px, px², °)`);
    expect(worst).toBeLessThanOrEqual(0.002);
    expect(measured.items.map((i) => i.count)).toEqual(measured.items.map((i) => items.find((x) => x.imageId === i.imageId)!.predictions.length));

    const pack = await call<PackStatusData>(t.app, 'POST', '/api/train/modelPack', { modelId: model.id, kind: 'model', sdkType: 'cpu', inputW: 64, inputH: 64, maxDet: 10, rotated: true }, { token });
    expect(pack.code, pack.message).toBe(0);
    const packed = await waitForPack(t.app, token, model.id, 'model');
    expect(packed.packStatus, packed.error ?? '').toBe('success');
  }, 150_000);
});
