import fs from 'node:fs';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelData, TrainingData, TrainingListData } from '@loupe/contracts';
import { loadConfig, type Config, type FairUseConfig } from '../src/config.js';
import { publicDetail } from '../src/runner/engine.js';
import { assertParamCeilings, maxBatch } from '../src/runner/fair-use.js';
import { adminToken, call, createUser, login, startApp, type TestApp } from './helper.js';
import { detail, labeledStudio, start, TINY, trainingsUrl, trainingUrl, waitFor } from './training-fixtures.js';

const GiB = 1024 ** 3;
const fairUse = (patch: Partial<FairUseConfig> = {}): FairUseConfig => ({
  ...loadConfig({}).fairUse,
  hardware: { cores: 2, memoryBytes: 8 * GiB, gpu: false },
  ...patch,
});
/** A training that would run for minutes: only a stop (or a time budget) ends it. */
const LONG = { ...TINY, epochs: 1000, patience: 0 };

async function account(app: TestApp['app'], priority = 0): Promise<string> {
  const { user, id } = await createUser(app);
  if (priority > 0) {
    const r = await call(app, 'PUT', `/api/admin/accounts/${id}/settings`, { trainingPriority: priority }, { token: await adminToken(app) });
    expect(r.code, r.message).toBe(0);
  }
  return login(app, user.email, user.password);
}

const stop = (app: TestApp['app'], token: string, modelId: number, id: number) => call(app, 'POST', `${trainingUrl(modelId, id)}/stop`, undefined, { token });
const statusOf = async (app: TestApp['app'], token: string, modelId: number, id: number) => (await detail(app, token, modelId, id)).status;

/** Waits until one of the trainings leaves 'queued'; answers its index. */
async function firstClaimed(app: TestApp['app'], runs: { token: string; modelId: number; id: number }[], timeoutMs = 45_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const [i, r] of runs.entries()) if ((await statusOf(app, r.token, r.modelId, r.id)) !== 'queued') return i;
    if (Date.now() > deadline) throw new Error('no queued training was claimed');
    await new Promise((r) => setTimeout(r, 150));
  }
}

describe('parameter ceilings follow the host and the plan (issue 30 item 5)', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startApp({ fairUse: fairUse() });
    token = await account(t.app);
  });
  afterAll(() => t.close());

  it('refuses imgsz 4096 on a CPU, workers 64 on 2 cores, epochs 10000, a batch beyond memory and hours beyond the plan, naming each ceiling', async () => {
    const s = await labeledStudio(t.app, token, { count: 3 });
    const cases: [Record<string, unknown>, number, string[]][] = [
      [{ imgsz: 4096 }, 40052, ['imgsz', '1280', '4096']],
      [{ crop: 2048 }, 40052, ['crop', '1280']],
      [{ workers: 64 }, 40051, ['workers', '2', '64']],
      [{ procs: 3 }, 40051, ['procs', '2']],
      [{ epochs: 10000 }, 40054, ['epochs', '1000', '10000']],
      [{ imgsz: 1280, batch: 64 }, 40053, ['batch', String(maxBatch(t.config.fairUse, 1280)), '64']],
      [{ time: 24 }, 40055, ['time', '12', '24']],
    ];
    for (const [params, code, words] of cases) {
      const r = await start(t.app, token, s.model.id, { ...TINY, ...params }, 'en');
      expect([r.status, r.code], JSON.stringify(params)).toEqual([code === 40050 ? 429 : 400, code]);
      for (const w of words) expect(r.message).toContain(w);
    }
    // In the user's language, and nothing was queued or frozen by any of them.
    const de = await start(t.app, token, s.model.id, { ...TINY, imgsz: 4096 }, 'de');
    expect(de.message).toMatch(/höchstens 1280/);
    const list = await call<TrainingListData>(t.app, 'GET', trainingsUrl(s.model.id), undefined, { token });
    expect(list.data.total).toBe(0);
    const snapshots = await t.app.deps.db.selectFrom('dataset_snapshots').select('id').where('model_id', '=', s.model.id).execute();
    expect(snapshots).toHaveLength(0);
    expect((await call<ModelData>(t.app, 'GET', `/api/models/${s.model.id}`, undefined, { token })).data.projectStatus).toBe('no');
    // Saving such a value on the parameter page is refused the same way, and nothing is saved.
    const saved = await call(t.app, 'PUT', `/api/models/${s.model.id}/parameters`, { params: { imgsz: 4096 } }, { token });
    expect([saved.status, saved.code]).toEqual([400, 40052]);
    expect(saved.message).toContain('1280');
    expect((await call<{ saved: Record<string, unknown> }>(t.app, 'GET', `/api/models/${s.model.id}/parameters`, undefined, { token })).data.saved).toEqual({});
  });

  it('allows the priority plan its longer hours, and a GPU host its larger images', async () => {
    const priority = await account(t.app, 1);
    const s = await labeledStudio(t.app, priority, { count: 3 });
    const r = await start(t.app, priority, s.model.id, { ...TINY, time: 72 });
    expect(r.code, r.message).toBe(0);
    await stop(t.app, priority, s.model.id, r.data.id);
    await waitFor(t.app, priority, s.model.id, r.data.id, (x) => !['queued', 'preparing', 'training'].includes(x.status));
    const gpu = fairUse({ hardware: { cores: 16, memoryBytes: 128 * GiB, gpu: true } });
    expect(() => assertParamCeilings(gpu, { imgsz: 4096, workers: 16, batch: 2 }, 0)).not.toThrow();
    expect(() => assertParamCeilings(gpu, { workers: 17 }, 0)).toThrow('ceilingCores');
  });
});

describe('job slots are shared fairly between accounts (issue 30 item 5)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ jobConcurrency: 1, fairUse: fairUse({ jobsPerAccount: 2 }) });
  });
  afterAll(() => t.close());

  it('refuses a job beyond the account’s limit, leaving nothing behind, while another account still queues', async () => {
    const a = await account(t.app);
    const b = await account(t.app);
    const [m1, m2, m3] = [await labeledStudio(t.app, a), await labeledStudio(t.app, a), await labeledStudio(t.app, a)];
    const one = await start(t.app, a, m1.model.id, LONG);
    const two = await start(t.app, a, m2.model.id, LONG);
    expect([one.code, two.code]).toEqual([0, 0]);
    const three = await start(t.app, a, m3.model.id, LONG, 'en');
    expect([three.status, three.code]).toEqual([429, 40050]);
    expect(three.message).toContain('2');
    const list = await call<TrainingListData>(t.app, 'GET', trainingsUrl(m3.model.id), undefined, { token: a });
    expect(list.data.total).toBe(0);
    expect(await t.app.deps.db.selectFrom('dataset_snapshots').select('id').where('model_id', '=', m3.model.id).execute()).toHaveLength(0);
    expect((await call<ModelData>(t.app, 'GET', `/api/models/${m3.model.id}`, undefined, { token: a })).data.projectStatus).toBe('no');

    const mb = await labeledStudio(t.app, b);
    const other = await start(t.app, b, mb.model.id, LONG);
    expect(other.code, other.message).toBe(0);

    // A slot freed (the queued one stopped) takes a new job again.
    await stop(t.app, a, m2.model.id, two.data.id);
    expect(await statusOf(t.app, a, m2.model.id, two.data.id)).toBe('cancelled');
    const again = await start(t.app, a, m3.model.id, LONG);
    expect(again.code, again.message).toBe(0);
    for (const [token, m, id] of [[a, m1, one.data.id], [a, m3, again.data.id], [b, mb, other.data.id]] as const) await stop(t.app, token, m.model.id, id);
    await waitFor(t.app, a, m1.model.id, one.data.id, (x) => x.status === 'cancelled');
  }, 120_000);

  it('lets requests that arrive together pass the limit no more than one at a time', async () => {
    const a = await account(t.app);
    const models = [];
    for (let i = 0; i < 4; i += 1) models.push(await labeledStudio(t.app, a, { count: 6 }));
    const answers = await Promise.all(models.map((m) => start(t.app, a, m.model.id, LONG)));
    expect(answers.map((r) => r.code).sort()).toEqual([0, 0, 40050, 40050]);
    const active = await t.app.deps.db.selectFrom('jobs').select('id').where('state', 'in', ['queued', 'running']).where('model_id', 'in', models.map((m) => m.model.id)).execute();
    expect(active).toHaveLength(2);
    for (const [i, r] of answers.entries()) if (r.code === 0) await stop(t.app, a, models[i]!.model.id, r.data.id);
    for (const [i, r] of answers.entries()) if (r.code === 0) await waitFor(t.app, a, models[i]!.model.id, r.data.id, (x) => x.status === 'cancelled');
  }, 120_000);

  it('serves higher priority first, then an account that was not served before one that was', async () => {
    const a = await account(t.app);
    const b = await account(t.app);
    const c = await account(t.app, 2);
    const [ma1, ma2, mb, mc] = [await labeledStudio(t.app, a), await labeledStudio(t.app, a), await labeledStudio(t.app, b), await labeledStudio(t.app, c)];
    const a1 = (await start(t.app, a, ma1.model.id, LONG)).data;
    await waitFor(t.app, a, ma1.model.id, a1.id, (x) => x.status === 'training');
    // Queued in this order while a's first job holds the only slot: a's second, then b's, then c's (priority 2).
    const queued: { token: string; modelId: number; id: number }[] = [];
    for (const [token, m] of [[a, ma2], [b, mb], [c, mc]] as const) {
      const r = await start(t.app, token, m.model.id, LONG);
      expect(r.code, r.message).toBe(0);
      queued.push({ token, modelId: m.model.id, id: r.data.id });
    }
    await stop(t.app, a, ma1.model.id, a1.id);
    // c's priority goes first although it came last.
    expect(await firstClaimed(t.app, queued)).toBe(2);
    await stop(t.app, c, mc.model.id, queued[2]!.id);
    // Same priority: b, never served, before a's second job, although a's was queued first.
    expect(await firstClaimed(t.app, queued.slice(0, 2))).toBe(1);
    expect(await statusOf(t.app, a, ma2.model.id, queued[0]!.id)).toBe('queued');
    await stop(t.app, a, ma2.model.id, queued[0]!.id);
    await stop(t.app, b, mb.model.id, queued[1]!.id);
    await waitFor(t.app, b, mb.model.id, queued[1]!.id, (x) => x.status === 'cancelled');
  }, 120_000);
});

describe('a training stops at its plan’s time budget (issue 30 item 5)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ fairUse: fairUse({ trainingMaxS: { standard: 6, priority: 3600 } }) });
  });
  afterAll(() => t.close());

  it('ends succeeded with its best weights, saying the time limit stopped it', async () => {
    const token = await account(t.app);
    const s = await labeledStudio(t.app, token);
    const r = await start(t.app, token, s.model.id, LONG);
    expect(r.code, r.message).toBe(0);
    const done = await waitFor(t.app, token, s.model.id, r.data.id, (x) => !['queued', 'preparing', 'training'].includes(x.status), 90_000);
    expect(done.status, done.error ?? '').toBe('succeeded');
    expect(done.hasWeights).toBe(true);
    expect(done.summary).toMatchObject({ stopped_by: 'time', time_limit_s: 6 });
    expect(done.epoch).toBeLessThan(1000);
  }, 120_000);
});

describe('a failed training shows the failure in the user’s language, without tracebacks or server paths (issue 30 item 6)', () => {
  let t: TestApp;
  const logged: string[] = [];
  beforeAll(async () => {
    const logStream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        logged.push(chunk.toString());
        cb();
      },
    });
    t = await startApp({ logLevel: 'warn' } as Partial<Config>, { logStream });
  });
  afterAll(() => t.close());

  it('keeps the engine’s one-line detail and sends the traceback to the server log only', async () => {
    const token = await account(t.app);
    const s = await labeledStudio(t.app, token);
    const first = await start(t.app, token, s.model.id, TINY);
    expect(first.code, first.message).toBe(0);
    await waitFor(t.app, token, s.model.id, first.data.id, (x) => x.status === 'succeeded', 90_000);
    // The stored dataset manifest damaged on disk (valid JSON, wrong shape): the engine dies with a Python traceback.
    const row = await t.app.deps.db
      .selectFrom('trainings')
      .innerJoin('dataset_snapshots', 'dataset_snapshots.id', 'trainings.snapshot_id')
      .select('dataset_snapshots.manifest_sha')
      .where('trainings.id', '=', first.data.id)
      .executeTakeFirstOrThrow();
    const file = await t.app.deps.blobs.localFile(row.manifest_sha);
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(file, JSON.stringify({ ...manifest, annotations: 5 }));

    const second = await start(t.app, token, s.model.id, TINY, 'de');
    expect(second.code, second.message).toBe(0);
    await waitFor(t.app, token, s.model.id, second.data.id, (x) => x.status === 'failed', 90_000);
    const answers = [
      await call(t.app, 'GET', trainingUrl(s.model.id, second.data.id), undefined, { token, lang: 'de' }),
      await call(t.app, 'GET', trainingsUrl(s.model.id), undefined, { token, lang: 'de' }),
      await call(t.app, 'GET', `/api/models/${s.model.id}`, undefined, { token, lang: 'de' }),
    ];
    const failed = answers[0]!.data as TrainingData;
    expect(failed.error).toMatch(/^Die Engine .*TypeError: 'int' object is not iterable$/);
    for (const a of answers) {
      const text = JSON.stringify(a);
      expect(text).not.toContain('Traceback');
      expect(text).not.toContain('File \\"');
      expect(text).not.toContain(t.config.dataDir);
      expect(text).not.toContain(t.config.engine.pythonPath);
      expect(text).not.toMatch(/\/(tmp|work|home|usr)\//);
    }
    // The whole story is in the server log.
    expect(logged.join('')).toContain('Traceback (most recent call last)');
  }, 120_000);

  it('cuts paths out of engine messages but keeps file names and the exception line', () => {
    expect(publicDetail('pretrained checkpoint not found: /srv/loupe/blobs/ab/abcd.pt (no weights are downloaded)')).toBe('pretrained checkpoint not found: abcd.pt (no weights are downloaded)');
    expect(publicDetail("FileNotFoundError: [Errno 2] No such file or directory: '/data/jobs/3/run/best.pt'")).toBe("FileNotFoundError: [Errno 2] No such file or directory: 'best.pt'");
    expect(publicDetail('images that do not decode or are missing: a.jpg, b.png')).toBe('images that do not decode or are missing: a.jpg, b.png');
    const traceback = ['Traceback (most recent call last):', '  File "/opt/engine/loupe_engine/cli.py", line 137, in main', '    train(args)', '    ^^^^^^^^^^^', 'ValueError: bad value in /opt/x/y.json'].join('\n');
    expect(publicDetail(traceback)).toBe('ValueError: bad value in y.json');
    // A stderr tail whose traceback header was cut off: its last line is still the exception.
    expect(publicDetail(['    ^^^^^^', '  File "/opt/engine/x.py", line 3, in f', '    g()', 'RuntimeError: boom in /opt/engine/x.py'].join('\n'), 300, 'last')).toBe('RuntimeError: boom in x.py');
  });
});
