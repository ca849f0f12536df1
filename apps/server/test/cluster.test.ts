import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImageListData, ModelListData, PackStatusData, TestRunData, TrainingData, TrainingDetailData } from '@loupe/contracts';
import { ADMIN, call, createUser, login } from './helper.js';
import { freePort, startRedis, type TestRedis } from './redis-server.js';
import { startS3 } from './s3-server.js';
import { setDownloadPermission, waitForPack } from './delivery-fixtures.js';
import { labeledStudio, parseSse, TINY, trainingsUrl, trainingUrl, waitFor, type SseEvent } from './training-fixtures.js';

/**
 * Issue 34 item 5: the road beyond one machine, on this one machine. Debian's redis-server, the PostgreSQL this
 * stage of `npm test` started (scripts/with-postgres.sh), an S3 server (s3rver), two API servers on two ports and two
 * runners, each its own process of the built server (`dist/main.js`, `dist/runner-main.js`) with its own DATA_DIR: no
 * file system is shared, blobs go through S3, jobs through BullMQ, progress through Redis pub/sub. Everything is
 * driven as a user would, through HTTP: the fixtures' `inject` is answered by fetch against a server's port.
 * Runs where DATABASE_URL is set (the PostgreSQL stage); the SQLite stage has no database two hosts could share.
 */
const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist');
const TERMINAL = ['succeeded', 'failed', 'cancelled'];

interface Proc {
  name: string;
  child: ChildProcess;
  dataDir: string;
  log: string[];
}

const alive = (pid: number) => fs.existsSync(`/proc/${pid}`) && !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));

/** The engine a process started: its child running loupe_engine. */
function engineOf(parent: number): number | null {
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const ppid = Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      if (ppid === parent && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('loupe_engine')) return Number(pid);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

async function until<T>(what: string, probe: () => Promise<T | null> | T | null, timeoutMs: number, procs: Proc[] = []): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${procs.map((p) => `--- ${p.name}\n${p.log.slice(-30).join('')}`).join('\n')}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** What the fixtures need of a Fastify app, answered over real HTTP by the server at `base`. */
function overHttp(base: string): FastifyInstance {
  const inject = async (o: { method: string; url: string; headers?: Record<string, string>; payload?: string | Buffer }) => {
    const body = typeof o.payload === 'string' || o.payload === undefined ? o.payload : new Uint8Array(o.payload);
    const res = await fetch(base + o.url, { method: o.method, headers: o.headers, body });
    const raw = Buffer.from(await res.arrayBuffer());
    return { statusCode: res.status, headers: Object.fromEntries(res.headers), body: raw.toString('utf8'), rawPayload: raw, json: () => JSON.parse(raw.toString('utf8')) as unknown };
  };
  return { inject } as unknown as FastifyInstance;
}

/** Follows an SSE stream until it ends (the training's terminal state); resolves with every event. */
function follow(base: string, url: string, token: string): Promise<SseEvent[]> {
  return (async () => {
    const res = await fetch(base + url, { headers: { 'x-token': token } });
    return parseSse(await res.text());
  })();
}

describe.runIf(process.env.DATABASE_URL)('a cluster: two API servers, two runners, Redis, PostgreSQL and S3 (issue 34 item 5)', () => {
  const procs: Proc[] = [];
  let redis: TestRedis;
  let s3: Awaited<ReturnType<typeof startS3>>;
  let db: pg.Client;
  let env: NodeJS.ProcessEnv;
  const schema = `t_cluster_${randomBytes(5).toString('hex')}`;
  const servers: { base: string; proc: Proc }[] = [];
  const runners: Proc[] = [];

  function launch(name: string, main: string, extra: NodeJS.ProcessEnv): Proc {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `loupe-cluster-${name}-`));
    const child = spawn(process.execPath, [path.join(DIST, main)], { env: { ...env, ...extra, DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] });
    const p: Proc = { name, child, dataDir, log: [] };
    for (const s of [child.stdout!, child.stderr!]) s.setEncoding('utf8').on('data', (d: string) => p.log.push(d));
    procs.push(p);
    return p;
  }

  async function server(name: string): Promise<{ base: string; proc: Proc }> {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const proc = launch(name, 'main.js', { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, RUNNER_IN_SERVER: 'false' });
    await until(`${name} to answer`, async () => ((await fetch(`${base}/api/health`).catch(() => null))?.ok ? true : null), 30_000, [proc]);
    return { base, proc };
  }

  beforeAll(async () => {
    expect(fs.existsSync(path.join(DIST, 'runner-main.js')), 'build the server first (npm run build -w @loupe/server)').toBe(true);
    redis = await startRedis();
    s3 = await startS3();
    env = {
      ...process.env,
      DATABASE_URL: process.env.DATABASE_URL,
      DATABASE_SCHEMA: schema,
      DATABASE_POOL_MAX: '4',
      REDIS_URL: redis.url,
      S3_ENDPOINT: s3.endpoint,
      S3_BUCKET: s3.bucket,
      S3_REGION: s3.region,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      // A runner that stops answering loses its jobs after 3 s.
      JOB_LEASE_S: '3',
      LOUPE_ADMIN_EMAIL: ADMIN.email,
      LOUPE_ADMIN_PASSWORD: ADMIN.password,
      RATE_LIMIT_MAX: '100000',
      RATE_LIMIT_AUTH_MAX: '100000',
      LOG_LEVEL: 'warn',
      SWEEP_INTERVAL_S: '0',
      OMP_WAIT_POLICY: 'PASSIVE',
    };
    // The first server migrates the new schema; the others start on it.
    servers.push(await server('server-a'));
    servers.push(await server('server-b'));
    for (const n of [1, 2]) runners.push(launch(`runner-${n}`, 'runner-main.js', { RUNNER_ID: `runner-${n}`, JOB_CONCURRENCY: '1', LOG_LEVEL: 'info' }));
    await until('both runners to start', () => (runners.every((r) => r.log.join('').includes('taking')) ? true : null), 30_000, runners);
    db = new pg.Client({ connectionString: process.env.DATABASE_URL, options: `-c search_path=${schema}` });
    await db.connect();
  }, 90_000);

  afterAll(async () => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await db?.end();
    await s3?.stop();
    await redis?.stop();
    for (const p of procs) fs.rmSync(p.dataDir, { recursive: true, force: true });
  });

  it('trains through A, follows through B, survives a runner killed mid-epoch, tests, exports, and B serves all once A stops', { timeout: 300_000 }, async () => {
    const [A, B] = [overHttp(servers[0]!.base), overHttp(servers[1]!.base)];
    const { user, id: userId } = await createUser(A);
    const token = await login(A, user.email, user.password);
    // Uploaded through server A: the images' bytes go to S3.
    const s = await labeledStudio(A, token);

    const epochs = 12;
    const started = await call<TrainingData>(A, 'POST', trainingsUrl(s.model.id), { params: { ...TINY, epochs } }, { token });
    expect(started.code, started.message).toBe(0);
    const training = started.data.id;
    // Followed through server B while a runner trains: every event crosses Redis.
    const stream = follow(servers[1]!.base, `${trainingUrl(s.model.id, training)}/events`, token);

    const before = await until('two epochs on some runner', async () => {
      const d = (await call<TrainingDetailData>(B, 'GET', trainingUrl(s.model.id, training), undefined, { token })).data;
      return d.status === 'training' && d.history.length >= 2 && d.history.length < epochs - 2 ? d : null;
    }, 90_000, procs);
    const busy = await until('the runner with the engine', () => runners.find((r) => engineOf(r.child.pid!) !== null) ?? null, 10_000, procs);
    const engine = engineOf(busy.child.pid!)!;
    const other = runners.find((r) => r !== busy)!;

    busy.child.kill('SIGKILL');
    await until('the runner to die', () => (alive(busy.child.pid!) ? null : true), 10_000);
    // Its orphaned engine notices its runner is gone and stops (it watches LOUPE_PARENT_PID).
    await until('the orphaned engine to stop', () => (alive(engine) ? null : true), 30_000);

    const done = await waitFor(B, token, s.model.id, training, (x) => TERMINAL.includes(x.status), 120_000);
    expect(done.status, `${done.error ?? ''}\n${other.log.join('')}`).toBe('succeeded');
    expect(done.history.map((h) => h.epoch)).toEqual(Array.from({ length: epochs }, (_, i) => i + 1));
    // Epochs before the last one seen were in a stored checkpoint: kept as they were, the other runner resumed after
    // them (the last one seen may have been trained again, from the checkpoint before it).
    const kept = before.history.length - 1;
    expect(done.history.slice(0, kept).map((h) => h.metrics)).toEqual(before.history.slice(0, kept).map((h) => h.metrics));
    expect(other.log.join('')).toMatch(/resuming from epoch|runner-2|runner-1/);
    const job = (await db.query<{ state: string; attempts: number }>('select state, attempts from jobs where id = (select job_id from trainings where id = $1)', [training])).rows[0];
    expect(job).toEqual({ state: 'succeeded', attempts: 2 });

    // The stream on B saw epochs from both runners, the takeover (queued again) and the end.
    const events = await stream;
    const states = events.filter((e) => e.event === 'state').map((e) => (e.data as { status: string }).status);
    expect(states.at(-1)).toBe('succeeded');
    expect(states).toContain('queued');
    const seen = events.filter((e) => e.event === 'progress' && e.id).map((e) => Number(e.id));
    expect(seen.at(-1)).toBe(epochs);

    // Tested through B, on whichever runner is left.
    const test = await call<TestRunData>(B, 'POST', `/api/models/${s.model.id}/tests`, { source: 'images', imageIds: s.images.slice(0, 4), settings: { conf: 0.001 } }, { token });
    expect(test.code, test.message).toBe(0);
    const tested = await until('the test', async () => {
      const r = (await call<TestRunData>(B, 'GET', `/api/models/${s.model.id}/tests/${test.data.id}`, undefined, { token })).data;
      return TERMINAL.includes(r.status) ? r : null;
    }, 90_000, procs);
    expect(tested.status, tested.error ?? '').toBe('succeeded');

    // Exported and downloaded through B.
    await setDownloadPermission(B, userId, true);
    const pack = await call<PackStatusData>(B, 'POST', '/api/train/modelPack', { modelId: s.model.id, kind: 'model', inputW: 64, inputH: 64, maxDet: 100, rotated: false }, { token });
    expect(pack.code, pack.message).toBe(0);
    const packed = await waitForPack(B, token, s.model.id, 'model', 90_000);
    expect(packed.packStatus, packed.error ?? '').toBe('success');
    const file = await fetch(`${servers[1]!.base}/api/train/download/${packed.id}/64/64`, { headers: { 'x-token': token } });
    expect(file.status).toBe(200);
    const onnx = Buffer.from(await file.arrayBuffer());
    expect(onnx.length).toBe(packed.bytes);
    expect(onnx.includes(Buffer.from('NonMaxSuppression'))).toBe(true);

    // Server A stops; B serves everything on its own.
    servers[0]!.proc.child.kill('SIGTERM');
    await until('server A to stop', () => (servers[0]!.proc.child.exitCode !== null || servers[0]!.proc.child.signalCode !== null ? true : null), 20_000);
    const models = await call<ModelListData>(B, 'GET', '/api/models', undefined, { token });
    expect(models.data.items.map((m) => m.id)).toContain(s.model.id);
    const gallery = await call<ImageListData>(B, 'GET', `/api/models/${s.model.id}/images`, undefined, { token });
    expect(gallery.data.total).toBe(s.images.length);
    const detail = await call<TrainingDetailData>(B, 'GET', trainingUrl(s.model.id, training), undefined, { token });
    expect(detail.data).toMatchObject({ status: 'succeeded', hasWeights: true });
    // An image as a page's <img> asks for it: the files cookie, no token in the URL; B answers with a signed S3 URL.
    const listed = await fetch(`${servers[1]!.base}/api/models`, { headers: { 'x-token': token } });
    const cookie = (listed.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect(cookie).toMatch(/^loupe_files=/);
    const imageUrl = `${servers[1]!.base}/api/models/${s.model.id}/images/${s.images[0]}/original`;
    // node:http, not fetch: fetch sets Sec-Fetch-Mode itself (cors), as a page's script would.
    const redirect = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get(imageUrl, { headers: { cookie, 'sec-fetch-mode': 'no-cors' } }, (res) => (res.resume(), resolve(res))).on('error', reject);
    });
    expect(redirect.statusCode).toBe(302);
    const signed = redirect.headers.location!;
    expect(signed.startsWith(s3.endpoint)).toBe(true);
    expect(signed).not.toContain(token);
    const viaS3 = Buffer.from(await (await fetch(signed)).arrayBuffer());
    const viaApi = Buffer.from(await (await fetch(imageUrl, { headers: { 'x-token': token } })).arrayBuffer());
    expect(viaS3.length).toBeGreaterThan(0);
    expect(viaS3.equals(viaApi)).toBe(true);
    const again = await fetch(`${servers[1]!.base}/api/train/download/${packed.id}/64/64`, { headers: { 'x-token': token } });
    expect(Buffer.from(await again.arrayBuffer()).equals(onnx)).toBe(true);

    // Nothing was shared through files: no server holds blobs of its own.
    for (const { proc } of servers) expect(fs.existsSync(path.join(proc.dataDir, 'blobs'))).toBe(false);
  });
});
