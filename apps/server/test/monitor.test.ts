import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MonitorData, PackStatusData, TestRunData } from '@loupe/contracts';
import { publicLogLine, runEngine } from '../src/runner/engine.js';
import { call, createUser, login, startApp, type TestApp } from './helper.js';
import { downloader, waitForPack } from './delivery-fixtures.js';
import { labeledStudio, start, TINY, trainedStudio, trainingUrl, waitFor } from './training-fixtures.js';

/** A training that runs until it is stopped. */
const LONG = { ...TINY, epochs: 1000, patience: 0 };
const monitorUrl = (modelId: number) => `/api/models/${modelId}/monitor`;

async function account(app: TestApp['app']): Promise<string> {
  const { user } = await createUser(app);
  return login(app, user.email, user.password);
}

async function monitor(app: TestApp['app'], token: string, modelId: number): Promise<MonitorData> {
  const r = await call<MonitorData>(app, 'GET', monitorUrl(modelId), undefined, { token });
  expect(r.code, r.message).toBe(0);
  return r.data;
}

/** Polls the monitor until `until` holds (the engine runs in its own process). */
async function monitorUntil(app: TestApp['app'], token: string, modelId: number, until: (m: MonitorData) => boolean, timeoutMs = 60_000): Promise<MonitorData> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = await monitor(app, token, modelId);
    if (until(m)) return m;
    if (Date.now() > deadline) throw new Error(`monitor never reached the state: ${JSON.stringify(m).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

describe('the monitor of a model (issue 31 item 3)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ jobConcurrency: 1 });
  });
  afterAll(() => t.close());

  it('shows the running job with its engine figures and log, the queued ones with their place, only to the owner, and the history after', async () => {
    const a = await account(t.app);
    const b = await account(t.app);
    const [m1, m2] = [await labeledStudio(t.app, a, { count: 6 }), await labeledStudio(t.app, a, { count: 6 })];
    const mb = await labeledStudio(t.app, b, { count: 6 });
    const one = await start(t.app, a, m1.model.id, LONG);
    expect(one.code, one.message).toBe(0);
    // One slot: the first runs, the others wait in the order they came.
    const two = await start(t.app, a, m2.model.id, LONG);
    const other = await start(t.app, b, mb.model.id, LONG);
    expect([two.code, other.code]).toEqual([0, 0]);

    const queuedA = (await monitor(t.app, a, m2.model.id)).active;
    expect(queuedA).toHaveLength(1);
    expect(queuedA[0]).toMatchObject({ kind: 'training', state: 'queued', phase: 'queued', version: 'v1', queuePosition: 1, process: null, startedAt: null });
    const queuedB = (await monitor(t.app, b, mb.model.id)).active;
    expect(queuedB[0]).toMatchObject({ state: 'queued', queuePosition: 2 });

    // The running one: its epochs for the curves, the engine's CPU share and memory from /proc, its log lines.
    const live = await monitorUntil(t.app, a, m1.model.id, (m) => {
      const j = m.active[0];
      return !!j && j.state === 'running' && j.curves.length >= 2 && (j.process?.cpuPercent ?? 0) > 0 && j.log.some((l) => /epoch \d+\/1000/.test(l));
    });
    const run = live.active[0]!;
    expect(run).toMatchObject({ kind: 'training', version: 'v1', trainingId: one.data.id, phase: expect.stringMatching(/^(training|validating)$/) as unknown, epochs: 1000, queuePosition: null });
    expect(run.epoch).toBeGreaterThanOrEqual(2);
    expect(run.etaS).toBeGreaterThan(0);
    expect(run.curves[0]!.metrics).toHaveProperty('loss');
    expect(run.process!.pid).toBeGreaterThan(1);
    // A Python with torch loaded holds far more than 50 MB.
    expect(run.process!.rssBytes).toBeGreaterThan(50 * 1024 * 1024);
    expect(run.process!.cpuPercent).toBeLessThanOrEqual(100 * 64);
    expect(run.log.length).toBeLessThanOrEqual(200);
    expect(run.log.join('\n')).not.toContain(t.config.dataDir);
    // This test runs on a CPU: no GPU figures (a CUDA host reports them in each epoch event).
    if (!t.config.fairUse.hardware.gpu) expect([run.gpu, live.gpuPresent]).toEqual([null, false]);
    // The running job is in the history too, without an end yet.
    expect(live.history[0]).toMatchObject({ jobId: run.jobId, state: 'running', endedAt: null });

    // Another account's model reads as a missing one; so does a model that does not exist.
    const foreign = await call(t.app, 'GET', monitorUrl(m1.model.id), undefined, { token: b });
    const missing = await call(t.app, 'GET', monitorUrl(999_999), undefined, { token: b });
    expect([foreign.status, foreign.code]).toEqual([missing.status, missing.code]);
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign)).not.toContain('cpuPercent');
    expect((await call(t.app, 'GET', monitorUrl(m1.model.id))).status).toBe(401);

    for (const [token, m, id] of [[a, m1, one.data.id], [a, m2, two.data.id], [b, mb, other.data.id]] as const) {
      const r = await call(t.app, 'POST', `${trainingUrl(m.model.id, id)}/stop`, undefined, { token });
      expect(r.code, r.message).toBe(0);
    }
    await waitFor(t.app, a, m1.model.id, one.data.id, (x) => x.status === 'cancelled');

    // Ended: nothing active; the history has the training with its version, times and duration.
    const after = await monitorUntil(t.app, a, m1.model.id, (m) => m.active.length === 0);
    expect(after.history).toHaveLength(1);
    const h = after.history[0]!;
    expect(h).toMatchObject({ jobId: run.jobId, kind: 'training', state: 'cancelled', version: 'v1', trainingId: one.data.id, subjectId: one.data.id, error: null });
    expect(Date.parse(h.endedAt!)).toBeGreaterThanOrEqual(Date.parse(h.startedAt!));
    expect(h.durationS).toBeGreaterThan(0);
    // The queued one that never ran: no start, no duration.
    const never = (await monitor(t.app, a, m2.model.id)).history[0]!;
    expect(never).toMatchObject({ state: 'cancelled', startedAt: null, durationS: null });
  }, 150_000);

  it('lists a training, a test and an export of the version, newest first, each with its version and its subject', async () => {
    const { token } = await downloader(t.app);
    const s = await trainedStudio(t.app, token, { count: 6 });
    const test = await call<TestRunData>(t.app, 'POST', `/api/models/${s.model.id}/tests`, { source: 'images', imageIds: s.images }, { token });
    expect(test.code, test.message).toBe(0);
    const tested = await monitorUntil(t.app, token, s.model.id, (m) => m.history[0]?.kind === 'test' && m.history[0].state === 'succeeded');
    expect(tested.active).toEqual([]);
    const pack = await call<PackStatusData>(t.app, 'POST', '/api/train/modelPack', { modelId: s.model.id, kind: 'model', inputW: 64, inputH: 64, maxDet: 100, rotated: false }, { token });
    expect(pack.code, pack.message).toBe(0);
    expect((await waitForPack(t.app, token, s.model.id, 'model')).packStatus).toBe('success');
    const m = await monitorUntil(t.app, token, s.model.id, (x) => x.history.length === 3 && x.history[0]!.state === 'succeeded');
    expect(m.history.map((h) => [h.kind, h.version, h.state, h.trainingId])).toEqual([
      ['export', 'v1', 'succeeded', s.trainingId],
      ['test', 'v1', 'succeeded', s.trainingId],
      ['training', 'v1', 'succeeded', s.trainingId],
    ]);
    expect(m.history.map((h) => h.subjectId)).toEqual([pack.data.id, test.data.id, s.trainingId]);
    for (const h of m.history) expect(h.durationS, h.kind).not.toBeNull();
  }, 120_000);

  it('keeps the last 200 log lines of an engine, stderr and stray stdout alike, and the GPU its epoch events name', async () => {
    // A stand-in engine process: 250 log lines on stderr, one stray stdout line, an epoch event with a GPU.
    const script = [
      "for (let i = 1; i <= 250; i++) process.stderr.write('line ' + i + '\\n');",
      "process.stdout.write('not json\\n');",
      "process.stdout.write(JSON.stringify({ event: 'epoch', epoch: 1, epochs: 2, metrics: {}, gpu: { name: 'NVIDIA H100', util_percent: 87, memory_used_bytes: 5, memory_total_bytes: 80 } }) + '\\n');",
    ].join('');
    const events: string[] = [];
    const run = runEngine([process.execPath], ['-e', script], { cwd: t.config.dataDir, env: process.env, onEvent: async (e) => void events.push(e.event) });
    expect(await run.exited).toBe(0);
    expect(events).toEqual(['epoch']);
    const logs = run.logs();
    expect(logs).toHaveLength(200);
    expect(logs).toContain('not json');
    expect(logs).toContain('line 250');
    expect(logs).not.toContain('line 50');
    expect(run.gpu()).toEqual({ name: 'NVIDIA H100', util_percent: 87, memory_used_bytes: 5, memory_total_bytes: 80 });
  });

  it('cuts server paths out of the log lines it shows, keeping the line', () => {
    expect(publicLogLine('12:00:01 pretrained: 10/12 tensors loaded from /srv/loupe/data/blobs/ab/cd.pt')).toBe('12:00:01 pretrained: 10/12 tensors loaded from cd.pt');
    expect(publicLogLine('  File "/usr/lib/python3/dist-packages/torch/nn/modules/module.py", line 1')).toBe('  File "module.py", line 1');
    expect(publicLogLine('epoch 2/3 loss 1.234 55.0 img/s')).toBe('epoch 2/3 loss 1.234 55.0 img/s');
  });
});
