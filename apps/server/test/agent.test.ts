import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { AgentRunData, AgentRunDetailData, TrainingData, TestRunListData } from '@loupe/contracts';
import { call, createUser, login, startApp, type TestApp } from './helper.js';
import { alive, MAIN, spawnServer, type ServerProcess } from './server-process.js';
import { labeledStudio, parseSse, SAME_ON_EVERY_HOST, TINY } from './training-fixtures.js';
import { studio, type Studio } from './labeling-fixtures.js';

/**
 * The agent (issue 35, SPEC §4 agent phases) on drawn 64 px images with TINY saved parameters and the smallest
 * budgets: a whole run, cancel in initialising, in tuning and in training, a server restart mid-run, and the refusals.
 */
const agentsUrl = (modelId: number) => `/api/models/${modelId}/agents`;
const PARAMS = { ...TINY, ...SAME_ON_EVERY_HOST, epochs: 3, seed: 1 };
const TERMINAL = ['complete', 'failed', 'cancelled'];

let t: TestApp;
let token: string;

async function detail(app: FastifyInstance, modelId: number, id: number, lang?: string): Promise<AgentRunDetailData> {
  const r = await call<AgentRunDetailData>(app, 'GET', `${agentsUrl(modelId)}/${id}`, undefined, { token, ...(lang ? { lang } : {}) });
  expect(r.code, r.message).toBe(0);
  return r.data;
}

async function waitAgent(app: FastifyInstance, modelId: number, id: number, until: (d: AgentRunDetailData) => boolean, timeoutMs = 100_000): Promise<AgentRunDetailData> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const d = await detail(app, modelId, id);
    if (until(d)) return d;
    if (Date.now() > end) throw new Error(`agent ${id} stuck in ${d.run.phase} (${d.run.error ?? ''})`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

async function readyStudio(count = 12): Promise<Studio> {
  const s = await labeledStudio(t.app, token, { count });
  const r = await call(t.app, 'PUT', `/api/models/${s.model.id}/parameters`, { params: PARAMS }, { token });
  expect(r.code, r.message).toBe(0);
  return s;
}

const start = (modelId: number, body: Record<string, unknown>, lang?: string) => call<AgentRunData>(t.app, 'POST', agentsUrl(modelId), body, { token, ...(lang ? { lang } : {}) });

beforeAll(async () => {
  t = await startApp({ queue: { kind: 'db', leaseMs: 1500, maxAttempts: 3 } });
  const { user } = await createUser(t.app);
  token = await login(t.app, user.email, user.password);
});
afterAll(() => t?.close());

describe('the agent', () => {
  it('runs every phase in order and explains itself in the request language', async () => {
    const s = await readyStudio();
    // Saved as a switch before issue 35: reads as 5 trials without gain.
    await t.app.deps.db.updateTable('models').set({ parameters: JSON.stringify({ ...PARAMS, agent_early_stop: true }) }).where('id', '=', s.model.id).execute();
    const r = await start(s.model.id, { budgetS: 60 }, 'de');
    expect(r.code, r.message).toBe(0);
    expect(r.data.phase).toBe('initialising');
    expect(r.data.earlyStop).toBe(5);
    // One agent per model at a time, and no training of the user's beside it.
    const again = await start(s.model.id, { budgetS: 60 });
    expect(again.code).toBe(40104);
    const training = await call(t.app, 'POST', `/api/models/${s.model.id}/trainings`, { params: PARAMS }, { token });
    expect(training.code).toBe(40104);
    const test = await call(t.app, 'POST', `/api/models/${s.model.id}/tests`, {}, { token });
    expect(test.code).toBe(40104);
    // The stream replays and follows until the run ends.
    const res = await t.app.inject({ method: 'GET', url: `${agentsUrl(s.model.id)}/${r.data.id}/events`, headers: { 'x-token': token } });
    const events = parseSse(res.body);
    const phases = events.filter((e) => e.event === 'run').map((e) => (e.data as AgentRunData).phase);
    const order = ['initialising', 'tuning', 'training', 'testing', 'retraining', 'complete'];
    const seen = order.filter((p) => phases.includes(p as AgentRunData['phase']));
    expect(seen, JSON.stringify(phases)).toEqual(order);
    const d = await detail(t.app, s.model.id, r.data.id);
    expect(d.run.phase, d.run.error ?? '').toBe('complete');
    expect(d.trials.length).toBeGreaterThanOrEqual(1);
    expect(d.log.length).toBeGreaterThan(4);
    expect(d.log.find((l) => l.key === 'analysed')?.text).toMatch(/Datensatz analysiert/);
    expect(d.log.some((l) => /^v\d+: F1 ist bei/.test(l.text))).toBe(true);
    expect(d.run.trainingIds.length).toBeGreaterThanOrEqual(1);
    expect(d.run.bestTrainingId).not.toBeNull();
    const main = await t.app.inject({ method: 'GET', url: `/api/models/${s.model.id}/trainings/${d.run.trainingIds[0]}`, headers: { 'x-token': token } });
    expect((main.json().data as TrainingData).status).toBe('succeeded');
    const row = await t.app.deps.db.selectFrom('trainings').select(['agent_id', 'suggested_conf']).where('id', '=', d.run.trainingIds[0]!).executeTakeFirstOrThrow();
    expect(row.agent_id).toBe(r.data.id);
    expect(JSON.parse(row.suggested_conf!).f1.overall).toBeGreaterThan(0);
    const tests = await call<TestRunListData>(t.app, 'GET', `/api/models/${s.model.id}/tests`, undefined, { token });
    expect(tests.data.items.map((x) => x.id)).toEqual(expect.arrayContaining(d.run.testRunIds));
    expect(tests.data.items.find((x) => x.id === d.run.testRunIds[0])?.status).toBe('succeeded');
  }, 60_000);

  /** Starts an agent whose training runs long (many epochs, so the budget ends it), waits for `phase`, then stops it. */
  async function cancelIn(phase: 'initialising' | 'tuning' | 'training'): Promise<void> {
    const s = await readyStudio();
    if (phase === 'training') await call(t.app, 'PUT', `/api/models/${s.model.id}/parameters`, { params: { ...PARAMS, epochs: 300 } }, { token });
    // One trial without gain ends tuning: the training comes sooner.
    const r = await start(s.model.id, { budgetS: 120, earlyStop: phase === 'training' ? 1 : 5 });
    expect(r.code, r.message).toBe(0);
    await waitAgent(t.app, s.model.id, r.data.id, (d) => d.run.phase === phase || TERMINAL.includes(d.run.phase), 40_000);
    const stop = await call<AgentRunData>(t.app, 'POST', `${agentsUrl(s.model.id)}/${r.data.id}/stop`, undefined, { token });
    expect(stop.code, stop.message).toBe(0);
    const d = await waitAgent(t.app, s.model.id, r.data.id, (x) => TERMINAL.includes(x.run.phase), 30_000);
    expect(d.run.phase, d.run.error ?? '').toBe('cancelled');
    expect(d.log.at(-1)?.key).toBe('cancelled');
    const trainings = await call<{ items: TrainingData[] }>(t.app, 'GET', `/api/models/${s.model.id}/trainings`, undefined, { token });
    expect(trainings.data.items.filter((x) => ['queued', 'preparing', 'training'].includes(x.status))).toEqual([]);
    if (phase === 'training') expect(trainings.data.items[0]?.status).toBe('cancelled');
    const again = await call(t.app, 'POST', `${agentsUrl(s.model.id)}/${r.data.id}/stop`, undefined, { token });
    expect(again.code).toBe(40106);
  }

  // Stopped as soon as it is started: its job may not have left the queue yet.
  it('cancels while initialising', () => cancelIn('initialising'), 60_000);
  it('cancels while tuning', () => cancelIn('tuning'), 60_000);
  it('cancels while training', () => cancelIn('training'), 60_000);

  it('refuses bad input and writes nothing', async () => {
    const s = await readyStudio(6);
    expect((await start(s.model.id, { budgetS: 10 })).code).toBe(20001);
    const foreign = await start(s.model.id, { budgetS: 60, ngLabelIds: [987654] }, 'zh');
    expect(foreign.code).toBe(20001);
    expect(foreign.message).toMatch(/[\u4e00-\u9fff]/);
    const empty = await studio(t.app, token, { count: 2, size: [64, 64], labels: ['scratch'] });
    expect((await start(empty.model.id, { budgetS: 60 })).code).toBe(8001);
    // Another user's model is not found, whatever its id.
    const { user } = await createUser(t.app);
    const other = await login(t.app, user.email, user.password);
    const theirs = await call(t.app, 'POST', agentsUrl(s.model.id), { budgetS: 60 }, { token: other });
    expect(theirs.code).toBe(20004);
    expect((await call(t.app, 'GET', agentsUrl(s.model.id), undefined, { token: other })).code).toBe(20004);
    for (const id of [s.model.id, empty.model.id]) {
      const list = await call<{ total: number }>(t.app, 'GET', agentsUrl(id), undefined, { token });
      expect(list.data.total).toBe(0);
    }
    const jobs = await t.app.deps.db.selectFrom('jobs').select('id').where('kind', '=', 'agent').where('model_id', 'in', [s.model.id, empty.model.id]).execute();
    expect(jobs).toEqual([]);
  });

  it('ends cleanly with a reason when the server stops mid-run, and the next server shows it', async () => {
    const s = await readyStudio();
    await call(t.app, 'PUT', `/api/models/${s.model.id}/parameters`, { params: { ...PARAMS, epochs: 300 } }, { token });
    const r = await start(s.model.id, { budgetS: 120, earlyStop: 1 }, 'ru');
    expect(r.code, r.message).toBe(0);
    await waitAgent(t.app, s.model.id, r.data.id, (d) => d.run.phase === 'training' || TERMINAL.includes(d.run.phase), 40_000);
    await t.app.close();
    const next = await startApp({ dataDir: t.config.dataDir, databaseSchema: t.config.databaseSchema, queue: { kind: 'db', leaseMs: 1500, maxAttempts: 3 } });
    t = { ...next, close: next.close };
    const d = await waitAgent(t.app, s.model.id, r.data.id, (x) => TERMINAL.includes(x.run.phase), 60_000);
    if (d.run.phase === 'failed') expect(d.run.error).toMatch(/agent/);
    else expect(d.run.phase).toBe('complete');
    expect(d.log.at(-1)?.text).toMatch(/[\u0400-\u04ff]/);
    const trainings = await call<{ items: TrainingData[] }>(t.app, 'GET', `/api/models/${s.model.id}/trainings`, undefined, { token });
    expect(trainings.data.items.filter((x) => ['queued', 'preparing', 'training'].includes(x.status))).toEqual([]);
  }, 90_000);
});

/**
 * A server killed with SIGKILL while its agent trains (the real server, `node dist/main.js`, in its own process;
 * npm test builds it first): the next server takes the job over once the dead lease runs out, skips the phases that
 * were done and resumes the training, and the run completes within its budget's deadline.
 */
describe('an agent whose server is killed', () => {
  let server: ServerProcess | null = null;
  afterAll(() => {
    const pid = server?.child.pid;
    if (pid && alive(pid)) server!.child.kill('SIGKILL');
  });

  it('is taken over and resumes from the phase it was in', { timeout: 90_000 }, async () => {
    expect(fs.existsSync(MAIN), `${MAIN} is missing: build the server first (npm run build -w @loupe/server)`).toBe(true);
    const s = await readyStudio();
    // Still training 1.5 s in, done a few seconds later: the budget does not end it.
    await call(t.app, 'PUT', `/api/models/${s.model.id}/parameters`, { params: { ...PARAMS, epochs: 20 } }, { token });
    const { dataDir, databaseSchema } = t.config;
    await t.app.close();
    server = await spawnServer(t.config, token);
    const { api } = server;
    await server.healthy();
    const r = await api<AgentRunData>('POST', agentsUrl(s.model.id), { budgetS: 75, earlyStop: 1 });
    expect(r.code, r.message).toBe(0);
    for (let i = 0; (await api<AgentRunDetailData>('GET', `${agentsUrl(s.model.id)}/${r.data.id}`)).data.run.phase !== 'training'; i++) {
      expect(i).toBeLessThan(200);
      await new Promise((x) => setTimeout(x, 150));
    }
    await new Promise((x) => setTimeout(x, 1500));
    server.child.kill('SIGKILL');
    t = await startApp({ dataDir, databaseSchema, queue: { kind: 'db', leaseMs: 3000, maxAttempts: 3 } });
    const d = await waitAgent(t.app, s.model.id, r.data.id, (x) => TERMINAL.includes(x.run.phase), 80_000);
    expect(d.run.phase, d.run.error ?? '').toBe('complete');
    expect(d.log.filter((l) => l.key === 'resumed')).toHaveLength(1);
    // The phases done before the kill ran once: one analysis entry, one tuning search.
    expect(d.log.filter((l) => l.key === 'analysed')).toHaveLength(1);
    expect(d.run.trainingIds[0]).toBeDefined();
    const main = await call<TrainingData>(t.app, 'GET', `/api/models/${s.model.id}/trainings/${d.run.trainingIds[0]}`, undefined, { token });
    expect(main.data.status).toBe('succeeded');
  });
});
