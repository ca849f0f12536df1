import path from 'node:path';
import type { Config } from './config.js';
import { openDatabase, type Dialect } from './db/database.js';
import { usersRepo } from './db/users.js';
import { sessionsRepo } from './db/sessions.js';
import { tokensRepo } from './db/tokens.js';
import { outboxRepo } from './db/outbox.js';
import { oidcStatesRepo } from './db/oidc-states.js';
import { modelsRepo } from './db/models.js';
import { imagesRepo } from './db/images.js';
import { labelsRepo } from './db/labels.js';
import { annotationsRepo } from './db/annotations.js';
import { testPredictionsRepo } from './db/test-predictions.js';
import { jobsRepo } from './db/jobs.js';
import { trainingsRepo } from './db/trainings.js';
import { testRunsRepo } from './db/test-runs.js';
import { fsBlobStore, type BlobStore } from './adapters/blob-store.js';
import { s3BlobStore } from './adapters/s3-blob-store.js';
import { memoryEventHub, type EventHub } from './adapters/event-bus.js';
import { redisEventHub } from './adapters/event-bus-redis.js';
import type { JobQueue } from './adapters/job-queue.js';
import { dbJobQueue } from './adapters/job-queue-db.js';
import { bullmqJobQueue } from './adapters/job-queue-bullmq.js';
import { redisReachable } from './adapters/redis.js';
import { outboxMailer, smtpMailer } from './adapters/mailer.js';
import { Topics, type TestEvent, type TrainingEvent } from './runner/bus.js';
import { createDispatch, type Dispatch } from './runner/dispatch.js';
import { createRunner, type Runner } from './runner/runner.js';
import { argon2Hasher } from './services/crypto.js';
import type { Deps } from './services/deps.js';
import type { AgentEvent } from './services/agent/view.js';

export interface WireOptions {
  now?: () => number;
  onQuery?: (sql: string) => void;
  log: Deps['log'];
  /** Run jobs in this process (the server with RUNNER_IN_SERVER, and `npm run runner`). */
  runner: boolean;
}

/** Everything a process of Loupe holds: the database, the ports' adapters, the services' deps, its runner. */
export interface Wired {
  deps: Deps;
  dialect: Dialect;
  queue: JobQueue;
  hub: EventHub;
  dispatch: Dispatch;
  runner: Runner | null;
  /** Hands waiting rows to the queue, reaps expired leases, starts the runner and the periodic sync/reap. */
  start(): Promise<void>;
  /** Stops the runner (its jobs record their end), then the ports, then the database. */
  close(): Promise<void>;
}

/**
 * Builds the ports from the configuration (ARCHITECTURE.md, "Embedded default, and the road to scale"): blobs in
 * DATA_DIR or S3, events in process or over Redis, the queue in the jobs table or BullMQ. Refuses to start with a
 * clear message when Redis or the bucket cannot be reached.
 */
export async function wire(config: Config, opts: WireOptions): Promise<Wired> {
  const now = opts.now ?? Date.now;
  if (config.redisUrl) await redisReachable(config.redisUrl, 5000);
  const blobs: BlobStore = config.storage.s3
    ? s3BlobStore({ ...config.storage.s3, cacheDir: config.storage.cacheDir ?? path.join(config.dataDir, 'blob-cache'), cacheMaxBytes: config.storage.cacheMaxBytes })
    : fsBlobStore(path.join(config.dataDir, 'blobs'));
  if (config.storage.s3) {
    const where = `S3 bucket "${config.storage.s3.bucket}"${config.storage.s3.endpoint ? ` at ${config.storage.s3.endpoint}` : ''}`;
    await blobs.exists('0'.repeat(64)).catch((e: unknown) => {
      throw new Error(`the ${where} cannot be reached: ${(e as Error).message}`);
    });
  }
  const database = await openDatabase(config, opts.onQuery);
  const db = database.db;
  const outbox = outboxRepo(db);
  const mailer = config.smtpUrl ? await smtpMailer(config.smtpUrl, config.mailFrom) : outboxMailer(outbox, now);
  const hub = config.redisUrl ? redisEventHub(config.redisUrl, { log: (m) => opts.log.warn(m) }) : memoryEventHub(opts.log);
  const queueOpts = { leaseMs: config.queue.leaseMs, maxAttempts: config.queue.maxAttempts };
  const queue = config.queue.kind === 'bullmq' ? bullmqJobQueue({ ...queueOpts, url: config.redisUrl! }) : dbJobQueue(db, { ...queueOpts, now });
  let runner: Runner | null = null;
  let dispatch: Dispatch | null = null;
  const deps: Deps = {
    config,
    db,
    users: usersRepo(db),
    sessions: sessionsRepo(db),
    tokens: tokensRepo(db),
    outbox,
    oidcStates: oidcStatesRepo(db),
    mailer,
    blobs,
    models: modelsRepo(db),
    images: imagesRepo(db),
    labels: labelsRepo(db),
    annotations: annotationsRepo(db),
    testPredictions: testPredictionsRepo(db),
    jobs: jobsRepo(db, { perAccount: config.fairUse.jobsPerAccount, lockOwner: database.dialect === 'postgres' }),
    trainings: trainingsRepo(db),
    // Bound below, before anything can queue.
    queue: {
      kick: () => {
        void dispatch!
          .sync()
          .catch((e: unknown) => opts.log.error(e, 'handing jobs to the queue failed'))
          .then(() => runner?.kick());
      },
      cancel: (id) => runner?.cancel(id) ?? false,
      inspect: (id) => runner?.inspect(id) ?? null,
    },
    trainingEvents: hub.topic<TrainingEvent>(Topics.training),
    testRuns: testRunsRepo(db),
    testEvents: hub.topic<TestEvent>(Topics.test),
    agentEvents: hub.topic<AgentEvent>('agent'),
    hasher: argon2Hasher(config.passwordHashing),
    now,
    log: opts.log,
  };
  dispatch = createDispatch(deps, queue);
  if (opts.runner) {
    runner = createRunner(deps, { queue, id: config.runner.id, kinds: config.runner.kinds, concurrency: config.jobConcurrency, workRoot: config.runner.workDir ?? path.join(config.dataDir, 'jobs') });
  }
  let stopLoop: (() => void) | null = null;
  const d = dispatch;
  return {
    deps,
    dialect: database.dialect,
    queue,
    hub,
    dispatch: d,
    runner,
    async start() {
      await d.sync();
      await d.reap();
      runner?.start();
      // Reap at least twice a lease, so a dead runner's job waits at most about 1.5 leases.
      stopLoop = d.loop(Math.max(500, Math.floor(config.queue.leaseMs / 2)));
    },
    async close() {
      stopLoop?.();
      await runner?.close();
      await queue.close().catch((e: unknown) => opts.log.error(e, 'closing the job queue failed'));
      await hub.close().catch((e: unknown) => opts.log.error(e, 'closing the event hub failed'));
      await blobs.close().catch(() => undefined);
      await mailer.close();
      await database.close();
    },
  };
}
