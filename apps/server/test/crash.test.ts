import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { ModelData, TrainingData, TrainingDetailData } from '@loupe/contracts';
import { startApp, type TestApp } from './helper.js';
import { alive, MAIN, spawnServer } from './server-process.js';
import { userToken } from './gallery-fixtures.js';
import { labeledStudio, TINY, trainingsUrl, trainingUrl } from './training-fixtures.js';

/**
 * Issue 6: "a kill -9 of the server during a training leaves a clear state after restart, not a job stuck in
 * 'training'"; issue 34: "a runner that dies loses nothing". The server here is the real one, `node dist/main.js`
 * in its own process (npm test builds it first), killed with SIGKILL while its engine trains; nothing gets to run a
 * shutdown handler. Restarted, it takes the job over once the dead process's lease has run out and resumes from the
 * last epoch's checkpoint in the blob store. The data is prepared and checked with in-process apps on the same data
 * folder and database.
 */

/** The engine a process started: its child running loupe_engine. */
function engineOf(parent: number): number | null {
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.split(') ')[1]!.split(' ')[1]);
      if (ppid === parent && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('loupe_engine')) return Number(pid);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

async function until<T>(what: string, probe: () => Promise<T | null> | T | null, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('a server killed with SIGKILL during a training', () => {
  let prep: TestApp;
  let server: ChildProcess | null = null;
  afterAll(async () => {
    if (server?.pid && alive(server.pid)) server.kill('SIGKILL');
    await prep?.close();
  });

  it('restarts and finishes the training from its last stored epoch once the dead lease runs out', { timeout: 150_000 }, async () => {
    expect(fs.existsSync(MAIN), `${MAIN} is missing: build the server first (npm run build -w @loupe/server)`).toBe(true);
    prep = await startApp();
    const token = await userToken(prep.app);
    const s = await labeledStudio(prep.app, token);
    const { dataDir, databaseSchema } = prep.config;
    await prep.app.close();

    const proc = await spawnServer(prep.config, token);
    server = proc.child;
    const { api } = proc;
    await proc.healthy();

    // Enough epochs that it is still training when killed; a finished epoch leaves a checkpoint to resume from.
    const epochs = 12;
    const started = await api<TrainingData>('POST', trainingsUrl(s.model.id), { params: { ...TINY, epochs } });
    expect(started.code, started.message).toBe(0);
    const before = await until('two finished epochs', async () => {
      const d = await api<TrainingDetailData>('GET', trainingUrl(s.model.id, started.data.id));
      return d.data.status === 'training' && d.data.history.length >= 2 && d.data.history.length < epochs ? d.data : null;
    }, 60_000);
    const engine = engineOf(server.pid!);
    expect(engine, 'the server runs the engine as its child').not.toBeNull();

    server.kill('SIGKILL');
    await until('the server to die', () => (alive(server!.pid!) ? null : true), 10_000);
    // No SIGTERM reached the engine; it must stop rather than train on unseen (it watches its runner's pid, and its
    // next event hits a closed pipe; engine/tests/test_cli.py holds the watch alone, with stdout to a file).
    await until('the orphaned engine to stop', () => (alive(engine!) ? null : true), 30_000);

    // The same server again: the job waits for its lease to run out, then resumes here.
    server = proc.restart();
    await proc.healthy();
    const after = await until('the training to end', async () => {
      const d = await api<TrainingDetailData>('GET', trainingUrl(s.model.id, started.data.id));
      return ['succeeded', 'failed', 'cancelled'].includes(d.data.status) ? d.data : null;
    }, 90_000);
    expect(after.status, after.error ?? '').toBe('succeeded');
    // Every epoch once, in order; the first seen before the kill was in a stored checkpoint (the second was being
    // stored when it was seen), so it is kept as it was.
    expect(after.history.map((h) => h.epoch)).toEqual(Array.from({ length: epochs }, (_, i) => i + 1));
    expect(after.history[0]!.metrics).toEqual(before.history[0]!.metrics);
    const m = await api<ModelData>('GET', `/api/models/${s.model.id}`);
    expect(m.data).toMatchObject({ projectStatus: 'no', trainingStatus: 'succeeded' });
    server.kill('SIGTERM');
    await until('the server to stop', () => (alive(server!.pid!) ? null : true), 20_000);
    prep = await startApp({ dataDir, databaseSchema });
    const job = await prep.app.deps.db.selectFrom('jobs').select(['state', 'attempts']).where('id', '=', (await prep.app.deps.db.selectFrom('trainings').select('job_id').where('id', '=', started.data.id).executeTakeFirstOrThrow()).job_id!).executeTakeFirstOrThrow();
    expect(job).toEqual({ state: 'succeeded', attempts: 2 });
  });
});
