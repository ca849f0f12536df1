import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors, type UploadData } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { draw, newModel, send, uploadUrl, userToken } from './gallery-fixtures.js';
import { labeledStudio, start, TINY } from './training-fixtures.js';

/**
 * Issue 30 item 8: what a crash leaves (blob files no row names, temp files, claims never released) is swept at
 * start-up and periodically, and deleting an image never removes the file of the same bytes that another
 * upload (another account's too) is committing at that moment.
 */
const HOUR = 3600_000;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const blobPath = (t: TestApp, s: string) => path.join(t.config.dataDir, 'blobs', s.slice(0, 2), s);
const tmpDir = (t: TestApp) => path.join(t.config.dataDir, 'blobs', 'tmp');

function writeBlob(t: TestApp, data: Buffer, ageMs: number): string {
  const s = sha(data);
  fs.mkdirSync(path.dirname(blobPath(t, s)), { recursive: true });
  fs.writeFileSync(blobPath(t, s), data);
  age(blobPath(t, s), ageMs);
  return s;
}

function age(file: string, ageMs: number) {
  const when = new Date(Date.now() - ageMs);
  fs.utimesSync(file, when, when);
}

/** Every image row's original and thumbnail, read from the database itself. */
async function imageBlobs(t: TestApp): Promise<string[]> {
  const rows = await t.app.deps.db.selectFrom('images').select(['sha256', 'thumb_sha']).execute();
  return rows.flatMap((r) => [r.sha256, r.thumb_sha]);
}

describe('orphan sweep at start-up', () => {
  let dataDir: string;
  let schema: string | null;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-orphans-'));
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('removes old unreferenced blob files, old temp files and dead golden folders, and keeps everything referenced or young', async () => {
    // A first run stores real images (and their thumbnails) through the API.
    const first = await startApp({ dataDir });
    schema = first.config.databaseSchema;
    const token = await userToken(first.app);
    const m = await newModel(first.app, token);
    const up = await send<UploadData>(first.app, token, uploadUrl(m.id), [
      { filename: 'a.png', data: await draw('png', 64, 64, 8101) },
      { filename: 'b.png', data: await draw('png', 64, 64, 8102) },
    ]);
    expect(up.data.accepted).toBe(2);
    const kept = await imageBlobs(first);
    expect(kept).toHaveLength(4);
    // An upload that died after claiming its key: the claim is as old as its file.
    const claimed = writeBlob(first, randomBytes(77), 2 * HOUR);
    await first.app.deps.db.insertInto('blob_guards').values({ sha256: claimed, claims: 1, claimed_at: Date.now() - 2 * HOUR }).execute();
    await first.app.close();

    // What kill -9 leaves: files of uploads that never committed, their temp files, a claim never released.
    for (const s of kept) age(blobPath(first, s), 3 * HOUR);
    const orphans = Array.from({ length: 61 }, (_, i) => writeBlob(first, randomBytes(64 + i), 2 * HOUR));
    const youngOrphan = writeBlob(first, randomBytes(99), 60_000);
    const temps = Array.from({ length: 10 }, () => path.join(tmpDir(first), randomBytes(12).toString('hex')));
    for (const f of temps) {
      fs.writeFileSync(f, randomBytes(1000));
      age(f, 2 * HOUR);
    }
    const youngTemp = path.join(tmpDir(first), 'in-progress');
    fs.writeFileSync(youngTemp, 'an upload still being received');
    const golden = path.join(dataDir, 'golden-abc123');
    fs.mkdirSync(golden);
    fs.writeFileSync(path.join(golden, 'spec.json'), '{}');
    age(golden, 2 * HOUR);

    // The restart: same folder, same database.
    const t = await startApp({ dataDir, databaseSchema: schema });
    try {
      for (const s of orphans) expect(fs.existsSync(blobPath(t, s)), s).toBe(false);
      for (const f of temps) expect(fs.existsSync(f), f).toBe(false);
      expect(fs.existsSync(golden)).toBe(false);
      expect(fs.existsSync(blobPath(t, claimed))).toBe(false);
      expect(await t.app.deps.db.selectFrom('blob_guards').selectAll().execute()).toEqual([]);
      // Referenced files stay however old; young files are left to the upload that may still commit them.
      for (const s of kept) expect(fs.existsSync(blobPath(t, s)), s).toBe(true);
      expect(fs.existsSync(blobPath(t, youngOrphan))).toBe(true);
      expect(fs.existsSync(youngTemp)).toBe(true);
    } finally {
      await t.app.close();
    }
  });
});

describe('periodic sweep and claims', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ maintenance: { sweepIntervalS: 1, graceS: 3600 } });
  });
  afterAll(() => t.close());

  it('sweeps again while running, every sweepIntervalS', async () => {
    const orphan = writeBlob(t, randomBytes(50), 2 * HOUR);
    const temp = path.join(tmpDir(t), 'left-behind');
    fs.writeFileSync(temp, 'x');
    age(temp, 2 * HOUR);
    const deadline = Date.now() + 10_000;
    while ((fs.existsSync(blobPath(t, orphan)) || fs.existsSync(temp)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(fs.existsSync(blobPath(t, orphan))).toBe(false);
    expect(fs.existsSync(temp)).toBe(false);
  });

  it('keeps an old file while an upload holds a recent claim on it, and sweeps it once the claim is stale', async () => {
    const held = writeBlob(t, randomBytes(51), 2 * HOUR);
    await t.app.deps.db.insertInto('blob_guards').values({ sha256: held, claims: 1, claimed_at: t.app.deps.now() }).execute();
    await new Promise((r) => setTimeout(r, 2500));
    expect(fs.existsSync(blobPath(t, held))).toBe(true);
    // The uploading process died: its claim ages past the grace period.
    t.advance(2 * HOUR);
    try {
      const deadline = Date.now() + 10_000;
      while (fs.existsSync(blobPath(t, held)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(fs.existsSync(blobPath(t, held))).toBe(false);
    } finally {
      t.advance(-2 * HOUR);
    }
  });
});

describe('outputs of a running job', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ maintenance: { sweepIntervalS: 1, graceS: 3600 } });
  });
  afterAll(() => t.close());

  it('keeps what was stored since the oldest running job began (a checkpoint no row names yet), until the job ends', async () => {
    const token = await userToken(t.app);
    const m = await newModel(t.app, token);
    const owner = await t.app.deps.db.selectFrom('models').select('owner_id').where('id', '=', m.id).executeTakeFirstOrThrow();
    const now = t.app.deps.now();
    // A training that has run for three hours, as another server process would be running it.
    const job = await t.app.deps.db
      .insertInto('jobs')
      .values({ kind: 'training', model_id: m.id, owner_id: owner.owner_id, state: 'running', payload: '{}', created_at: now - 3 * HOUR, started_at: now - 3 * HOUR, heartbeat_at: now, finished_at: null, error: null, result: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    const checkpoint = writeBlob(t, randomBytes(60), 2 * HOUR);
    const before = writeBlob(t, randomBytes(61), 4 * HOUR);
    const deadline = Date.now() + 10_000;
    while (fs.existsSync(blobPath(t, before)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(fs.existsSync(blobPath(t, before))).toBe(false);
    expect(fs.existsSync(blobPath(t, checkpoint))).toBe(true);
    await t.app.deps.db.updateTable('jobs').set({ state: 'failed', finished_at: t.app.deps.now() }).where('id', '=', job.id).execute();
    while (fs.existsSync(blobPath(t, checkpoint)) && Date.now() < deadline + 10_000) await new Promise((r) => setTimeout(r, 100));
    expect(fs.existsSync(blobPath(t, checkpoint))).toBe(false);
  });
});

describe('deleting an image while another account uploads the same bytes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ maintenance: { sweepIntervalS: 0, graceS: 3600 } });
  });
  afterAll(() => t.close());

  it('never leaves a row without its file or thumbnail, over many concurrent rounds', async () => {
    const alice = await userToken(t.app);
    const bob = await userToken(t.app);
    const rounds = 40;
    const images = await Promise.all(Array.from({ length: rounds }, (_, i) => draw('png', 48, 48, 9500 + i)));
    const round = async (i: number) => {
      const ma = await newModel(t.app, alice);
      const mb = await newModel(t.app, bob);
      const first = await send<UploadData>(t.app, alice, uploadUrl(ma.id), [{ filename: `x${i}.png`, data: images[i]! }]);
      const id = first.data.results[0]!.imageId!;
      // Alice deletes her image while Bob uploads the very same bytes.
      const [del, up] = await Promise.all([
        call(t.app, 'POST', `/api/models/${ma.id}/images/delete`, { ids: [id] }, { token: alice }),
        send<UploadData>(t.app, bob, uploadUrl(mb.id), [{ filename: `y${i}.png`, data: images[i]! }]),
      ]);
      expect(del.code, del.message).toBe(0);
      expect(up.data.accepted, up.message).toBe(1);
      const s = sha(images[i]!);
      expect(fs.existsSync(blobPath(t, s)), `round ${i}: Bob's image lost its file`).toBe(true);
    };
    for (let i = 0; i < rounds; i += 8) await Promise.all(Array.from({ length: Math.min(8, rounds - i) }, (_, k) => round(i + k)));
    // Every row in the database, originals and thumbnails, still has its file.
    const missing = (await imageBlobs(t)).filter((s) => !fs.existsSync(blobPath(t, s)));
    expect(missing).toEqual([]);
    // And the claims were all released.
    expect(await t.app.deps.db.selectFrom('blob_guards').selectAll().execute()).toEqual([]);
  });

  it('still removes the file when the last row that names it goes', async () => {
    const token = await userToken(t.app);
    const m = await newModel(t.app, token);
    const data = await draw('png', 48, 48, 9900);
    const up = await send<UploadData>(t.app, token, uploadUrl(m.id), [{ filename: 'z.png', data }]);
    const row = await t.app.deps.db.selectFrom('images').select(['sha256', 'thumb_sha']).where('id', '=', up.data.results[0]!.imageId!).executeTakeFirstOrThrow();
    expect(fs.existsSync(blobPath(t, row.sha256))).toBe(true);
    await call(t.app, 'POST', `/api/models/${m.id}/images/delete`, { ids: [up.data.results[0]!.imageId!] }, { token });
    expect(fs.existsSync(blobPath(t, row.sha256))).toBe(false);
    expect(fs.existsSync(blobPath(t, row.thumb_sha))).toBe(false);
  });
});

describe('starting a training while its images are deleted', () => {
  let t: TestApp;
  // No runner takes the jobs: what is checked is what the start leaves in the database and on disk.
  beforeAll(async () => (t = await startApp({ jobConcurrency: 0 })), 60_000);
  afterAll(() => t.close());

  it('refuses clearly, and stores nothing, when an image file went between reading the data and recording it', async () => {
    const token = await userToken(t.app);
    const s = await labeledStudio(t.app, token, { count: 6 });
    // A delete that finished after the images were read and before the snapshot named them: the file is gone.
    const row = await t.app.deps.db.selectFrom('images').select('sha256').where('id', '=', s.images[0]!).executeTakeFirstOrThrow();
    fs.rmSync(blobPath(t, row.sha256));
    const r = await start(t.app, token, s.model.id, TINY, 'de');
    expect(r).toMatchObject({ code: Errors.trainingDataChanged.code, message: expect.stringContaining('gelöscht') });
    for (const table of ['trainings', 'jobs', 'dataset_snapshots', 'blob_guards'] as const) {
      expect(await t.app.deps.db.selectFrom(table).selectAll().execute(), table).toEqual([]);
    }
  });

  it('never records a snapshot that names a missing file, over concurrent rounds of start and delete', async () => {
    const rounds = 6;
    // One account and model each (one training per model, three jobs per account), prepared one after another.
    const studios = [];
    for (let i = 0; i < rounds; i++) {
      const token = await userToken(t.app);
      studios.push({ token, s: await labeledStudio(t.app, token, { count: 6 }) });
    }
    await Promise.all(
      studios.map(async ({ token, s }, i) => {
        const [started, del] = await Promise.all([
          start(t.app, token, s.model.id),
          call(t.app, 'POST', `/api/models/${s.model.id}/images/delete`, { ids: [s.images[i % 4]!] }, { token }),
        ]);
        expect(del.code, del.message).toBe(0);
        expect([0, Errors.trainingDataChanged.code, Errors.labelNeedsTrainValid.code], started.message).toContain(started.code);
      }),
    );
    const named = await t.app.deps.db.selectFrom('snapshot_blobs').select('sha256').execute();
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((r) => !fs.existsSync(blobPath(t, r.sha256)))).toEqual([]);
    expect(await t.app.deps.db.selectFrom('blob_guards').selectAll().execute()).toEqual([]);
  }, 60_000);
});
