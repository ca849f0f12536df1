import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/database.js';
import type { JobKind } from '../src/db/schema.js';
import type { JobQueue, JobQueueOptions, Lease } from '../src/adapters/job-queue.js';
import { dbJobQueue } from '../src/adapters/job-queue-db.js';
import { bullmqJobQueue } from '../src/adapters/job-queue-bullmq.js';
import { redisConnection } from '../src/adapters/redis.js';
import { startRedis, type TestRedis } from './redis-server.js';

/**
 * The JobQueue contract (adapters/job-queue.ts), one suite for both adapters: the jobs table (SQLite, or
 * PostgreSQL when DATABASE_URL is set) and BullMQ on a real redis-server. Each "process" is its own queue
 * instance; for the db adapter on its own database connection.
 *
 * The database is opened as startApp() would (same config, migrations, a fresh PostgreSQL schema), without the
 * app: the app's in-process runner would claim these rows itself.
 */
const LEASE_MS = 400;
const OPTS: JobQueueOptions = { leaseMs: LEASE_MS, maxAttempts: 2 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let dataDir: string;
/** Two connections to one database: two processes. */
let dbs: [Database, Database];
let redis: TestRedis;
let owners: number[];
let models = 0;

/** A model of its own for each job: a model holds one active job of a kind (jobs_active_uq). */
async function newModel(ownerId: number): Promise<number> {
  const now = Date.now();
  const n = ++models;
  const row = await dbs[0].db
    .insertInto('models')
    .values({ owner_id: ownerId, name: `Queue ${n}`, name_key: `queue ${n}`, note: '', code: `q${n}-${now}`, type: 'DETECTION', project_status: 'no', training_status: 'notTrained', test_status: 'notTested', train_id: null, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-job-queue-'));
  const databaseUrl = process.env.DATABASE_URL || null;
  const config: Config = { ...loadConfig({}), dataDir, databaseUrl, databaseSchema: databaseUrl ? `t_${randomBytes(6).toString('hex')}` : null, logLevel: 'silent' };
  const first = await openDatabase(config);
  dbs = [first, await openDatabase(config)];
  redis = await startRedis();
  const now = Date.now();
  owners = [];
  for (const n of [1, 2]) {
    const { id } = await first.db
      .insertInto('users')
      .values({ email: `queue${n}-${now}@loupe.test`, password_hash: null, first_name: 'Q', last_name: String(n), company: '', company_id: '', phone: null, landline: '', country: '', job_title: '', role: '0', status: 'approved', language: 'en', training_priority: 0, download_permission: 0, oidc_subject: null, created_at: now, activated_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    owners.push(id);
  }
}, 30_000);

afterAll(async () => {
  await dbs?.[0].close();
  await dbs?.[1].close();
  await redis?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Adapter {
  name: 'db' | 'bullmq';
  /** Queue instances of one queue (fresh for each test): `process` 0 or 1 picks the database connection. */
  open(process: 0 | 1, opts?: JobQueueOptions): JobQueue;
}

let prefix = '';
const adapters: Adapter[] = [
  { name: 'db', open: (p, opts = OPTS) => dbJobQueue(dbs[p].db, opts) },
  { name: 'bullmq', open: (_p, opts = OPTS) => bullmqJobQueue({ ...opts, url: redis.url, prefix }) },
];

describe.each(adapters)('JobQueue contract: $name', (adapter) => {
  const opened: JobQueue[] = [];
  const open = (p: 0 | 1 = 0, opts?: JobQueueOptions) => {
    const q = adapter.open(p, opts);
    opened.push(q);
    return q;
  };
  let created = 1_000_000;

  /** A queued job: its row (the record, for both adapters), handed to the queue. */
  async function job(q: JobQueue, patch: { kind?: JobKind; priority?: number; owner?: number } = {}): Promise<number> {
    const kind = patch.kind ?? 'training';
    const priority = patch.priority ?? 0;
    const ownerId = patch.owner ?? owners[0]!;
    const createdAt = ++created;
    const { id } = await dbs[0].db
      .insertInto('jobs')
      .values({ kind, model_id: await newModel(ownerId), owner_id: ownerId, priority, state: 'queued', payload: '{}', created_at: createdAt, error: null, result: null, started_at: null, finished_at: null, heartbeat_at: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    await q.enqueue({ id, kind, ownerId, priority, createdAt });
    return id;
  }

  async function drain(q: JobQueue, runner: string, kinds: readonly JobKind[] = ['training', 'test', 'export', 'golden']): Promise<Lease[]> {
    const got: Lease[] = [];
    for (let l = await q.claim(runner, kinds); l; l = await q.claim(runner, kinds)) got.push(l);
    return got;
  }

  afterEach(async () => {
    for (const q of opened.splice(0)) await q.close();
    await dbs[0].db.deleteFrom('jobs').execute();
    prefix = `t${randomBytes(4).toString('hex')}`;
  });
  beforeAll(() => {
    prefix = `t${randomBytes(4).toString('hex')}`;
  });

  it('serves higher priority first, then older first, across kinds', async () => {
    const q = open();
    const a = await job(q, { priority: 0 });
    const b = await job(q, { priority: 5, kind: 'export' });
    const c = await job(q, { priority: 5 });
    const d = await job(q, { priority: 0, kind: 'test' });
    const e = await job(q, { priority: 10, kind: 'test' });
    const got = await drain(q, 'r1');
    expect(got.map((l) => l.jobId)).toEqual([e, b, c, a, d]);
    expect(got.map((l) => l.kind)).toEqual(['test', 'export', 'training', 'training', 'test']);
    expect(got.every((l) => l.attempt === 1 && l.runnerId === 'r1' && l.token.length > 0 && l.token.length <= 64)).toBe(true);
    expect(new Set(got.map((l) => l.token)).size).toBe(5);
  });

  it('gives a runner only its kinds', async () => {
    const q = open();
    const t1 = await job(q, { kind: 'training', priority: 9 });
    const x1 = await job(q, { kind: 'test' });
    const x2 = await job(q, { kind: 'export' });
    expect((await drain(q, 'cpu', ['test', 'export'])).map((l) => l.jobId)).toEqual([x1, x2]);
    expect(await q.claim('cpu', ['test', 'export', 'golden'])).toBeNull();
    expect((await q.claim('gpu', ['training']))?.jobId).toBe(t1);
  });

  it('two processes claiming at once never take the same job', async () => {
    const q1 = open(0);
    const q2 = open(1);
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) ids.push(await job(q1, { owner: owners[i % 2]!, kind: i % 3 ? 'training' : 'test' }));
    const [one, two] = await Promise.all([drain(q1, 'r1'), drain(q2, 'r2')]);
    const all = [...one, ...two].map((l) => l.jobId);
    expect(all).toHaveLength(20);
    // Both took part (each claims between the other's awaits).
    expect(one.length).toBeGreaterThan(0);
    expect(two.length).toBeGreaterThan(0);
    expect(new Set(all)).toEqual(new Set(ids));
    expect(await q1.waiting()).toBe(0);
  });

  it('a heartbeating job keeps its lease past leaseMs: another process starting and reaping does not take it', async () => {
    const q1 = open(0);
    await job(q1);
    const lease = (await q1.claim('r1', ['training']))!;
    const q2 = open(1);
    const until = Date.now() + 3 * LEASE_MS;
    while (Date.now() < until) {
      expect(await q1.heartbeat(lease)).toBe(true);
      expect(await q2.reap()).toEqual({ requeued: [], exhausted: [] });
      expect(await q2.claim('r2', ['training'])).toBeNull();
      await sleep(LEASE_MS / 4);
    }
    expect(await q1.heartbeat(lease)).toBe(true);
  });

  it('a lease without heartbeats expires: reap requeues it once, another runner resumes it (attempt 2), the first one has lost it', async () => {
    const q1 = open(0);
    const q2 = open(1);
    const id = await job(q1);
    const first = (await q1.claim('r1', ['training']))!;
    expect(first).toMatchObject({ jobId: id, attempt: 1 });
    expect(await q2.reap()).toEqual({ requeued: [], exhausted: [] });
    await sleep(LEASE_MS + 150);
    const [r1, r2] = await Promise.all([q2.reap(), q1.reap()]);
    expect([...r1.requeued, ...r2.requeued]).toEqual([id]);
    expect([...r1.exhausted, ...r2.exhausted]).toEqual([]);
    expect(await q2.reap()).toEqual({ requeued: [], exhausted: [] });
    expect(await q2.waiting()).toBe(1);
    const second = (await q2.claim('r2', ['training']))!;
    expect(second).toMatchObject({ jobId: id, attempt: 2, runnerId: 'r2' });
    expect(second.token).not.toBe(first.token);
    expect(await q1.heartbeat(first)).toBe(false);
    expect(await q2.heartbeat(second)).toBe(true);
    // The first runner's late complete does not end the second runner's job.
    await q1.complete(first);
    expect(await q2.heartbeat(second)).toBe(true);
  });

  it('a job whose lease expires on its last attempt is exhausted: reported once, never claimed again', async () => {
    const q1 = open(0);
    const q2 = open(1);
    const id = await job(q1);
    expect((await q1.claim('r1', ['training']))?.attempt).toBe(1);
    await sleep(LEASE_MS + 150);
    expect(await q2.reap()).toEqual({ requeued: [id], exhausted: [] });
    expect((await q2.claim('r2', ['training']))?.attempt).toBe(2);
    await sleep(LEASE_MS + 150);
    const [r1, r2] = await Promise.all([q1.reap(), q2.reap()]);
    expect([...r1.exhausted, ...r2.exhausted]).toEqual([id]);
    expect([...r1.requeued, ...r2.requeued]).toEqual([]);
    expect(await q1.reap()).toEqual({ requeued: [], exhausted: [] });
    expect(await q1.claim('r1', ['training'])).toBeNull();
    expect(await q1.waiting()).toBe(0);
    if (adapter.name === 'db') {
      const row = await dbs[0].db.selectFrom('jobs').select(['state', 'lease_owner', 'finished_at']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ state: 'failed', lease_owner: null });
      expect(row.finished_at).not.toBeNull();
    }
  });

  it('remove takes a waiting job out of the queue', async () => {
    const q = open();
    const id = await job(q);
    const other = await job(q);
    await q.remove(id);
    expect(await q.waiting()).toBe(1);
    expect((await drain(q, 'r1')).map((l) => l.jobId)).toEqual([other]);
    if (adapter.name === 'db') expect((await dbs[0].db.selectFrom('jobs').select('state').where('id', '=', id).executeTakeFirstOrThrow()).state).toBe('cancelled');
  });

  it('remove of a running job: its runner\'s next heartbeat answers false, and it is never requeued', async () => {
    const q1 = open(0);
    const q2 = open(1);
    const id = await job(q1);
    const lease = (await q1.claim('r1', ['training']))!;
    await q2.remove(id);
    expect(await q1.heartbeat(lease)).toBe(false);
    await sleep(LEASE_MS + 150);
    expect((await q2.reap()).requeued).toEqual([]);
    expect(await q2.claim('r2', ['training'])).toBeNull();
    expect(await q2.waiting()).toBe(0);
    await q1.complete(lease);
  });

  it('a completed job leaves the queue for good', async () => {
    const q = open();
    const id = await job(q);
    const lease = (await q.claim('r1', ['training']))!;
    await q.complete(lease);
    expect(await q.heartbeat(lease)).toBe(false);
    await sleep(LEASE_MS + 150);
    expect(await q.reap()).toEqual({ requeued: [], exhausted: [] });
    expect(await q.claim('r1', ['training'])).toBeNull();
    if (adapter.name === 'db') {
      // Its handler recorded no outcome: the row does not stay running.
      const row = await dbs[0].db.selectFrom('jobs').select(['state', 'lease_owner', 'lease_until']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(row).toEqual({ state: 'failed', lease_owner: null, lease_until: null });
    }
  });

  it('waiting() counts the jobs not leased; enqueue is idempotent', async () => {
    const q = open();
    expect(await q.waiting()).toBe(0);
    const id = await job(q, { kind: 'test' });
    await job(q);
    await job(q, { kind: 'export' });
    await q.enqueue({ id, kind: 'test', ownerId: owners[0]!, priority: 0, createdAt: 1 });
    expect(await q.waiting()).toBe(3);
    await q.claim('r1', ['training']);
    expect(await q.waiting()).toBe(2);
  });
});

describe('JobQueue db adapter', () => {
  it('serves the accounts of one priority in turn (the fair order of issue 30)', async () => {
    const q = dbJobQueue(dbs[0].db, OPTS);
    const now = Date.now();
    const ids: number[] = [];
    for (const [i, owner] of [owners[0], owners[0], owners[0], owners[1]].entries()) {
      const row = await dbs[0].db
        .insertInto('jobs')
        .values({ kind: 'export', model_id: await newModel(owner!), owner_id: owner!, state: 'queued', payload: '{}', created_at: now + i, error: null, result: null, started_at: null, finished_at: null, heartbeat_at: null })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids.push(row.id);
    }
    const got: number[] = [];
    for (let l = await q.claim('r1', ['export']); l; l = await q.claim('r1', ['export'])) got.push(l.jobId);
    // The second account's only job goes before the first account's second one (it holds one running already).
    expect(got).toEqual([ids[0], ids[3], ids[1], ids[2]]);
    await dbs[0].db.deleteFrom('jobs').execute();
  });

  it('requeues a running row left by a server before leases (no lease at all)', async () => {
    const q = dbJobQueue(dbs[0].db, OPTS);
    const now = Date.now();
    const { id } = await dbs[0].db
      .insertInto('jobs')
      .values({ kind: 'training', model_id: await newModel(owners[0]!), owner_id: owners[0]!, state: 'running', attempts: 1, payload: '{}', created_at: now, started_at: now, heartbeat_at: now, error: null, result: null, finished_at: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(await q.reap()).toEqual({ requeued: [id], exhausted: [] });
    expect(await q.claim('r1', ['training'])).toMatchObject({ jobId: id, attempt: 2 });
    await dbs[0].db.deleteFrom('jobs').execute();
  });

  it('moves time with `now`: a lease ends at claim + leaseMs, a heartbeat pushes it on', async () => {
    let t = 5_000_000;
    const q = dbJobQueue(dbs[0].db, { ...OPTS, leaseMs: 60_000, now: () => t });
    await dbs[0].db.insertInto('jobs').values({ kind: 'golden', model_id: await newModel(owners[1]!), owner_id: owners[1]!, state: 'queued', payload: '{}', created_at: t, error: null, result: null, started_at: null, finished_at: null, heartbeat_at: null }).execute();
    const lease = (await q.claim('r1', ['golden']))!;
    t += 59_000;
    expect(await q.heartbeat(lease)).toBe(true);
    t += 59_000;
    expect(await q.reap()).toEqual({ requeued: [], exhausted: [] });
    t += 2_000;
    expect((await q.reap()).requeued).toEqual([lease.jobId]);
    const row = await dbs[0].db.selectFrom('jobs').select(['state', 'started_at']).where('id', '=', lease.jobId).executeTakeFirstOrThrow();
    expect(row).toEqual({ state: 'queued', started_at: 5_000_000 });
    await dbs[0].db.deleteFrom('jobs').execute();
  });
});

describe('JobQueue bullmq adapter', () => {
  it('close() closes every connection it opened', async () => {
    prefix = `t${randomBytes(4).toString('hex')}`;
    const q = bullmqJobQueue({ ...OPTS, url: redis.url, prefix });
    await q.enqueue({ id: 1, kind: 'export', ownerId: owners[0]!, priority: 0, createdAt: 1 });
    const lease = (await q.claim('r1', ['training', 'export']))!;
    await q.heartbeat(lease);
    await q.reap();
    await q.complete(lease);
    const probe = redisConnection(redis.url, 'probe');
    try {
      const clients = async () => String(await probe.client('LIST')).trim().split('\n').length;
      expect(await clients()).toBeGreaterThan(1);
      await q.close();
      // ioredis's QUIT is answered before the server drops the socket.
      for (let i = 0; i < 40 && (await clients()) > 1; i++) await sleep(25);
      expect(await clients()).toBe(1);
    } finally {
      probe.disconnect();
    }
  });
});
