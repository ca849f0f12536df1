import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { DB } from '../db/schema.js';
import type { UsersRepo } from '../db/users.js';
import type { SessionsRepo } from '../db/sessions.js';
import type { TokensRepo } from '../db/tokens.js';
import type { OutboxRepo } from '../db/outbox.js';
import type { oidcStatesRepo } from '../db/oidc-states.js';
import type { Mailer } from '../adapters/mailer.js';
import type { PasswordHasher } from './crypto.js';
import type { BlobStore } from '../adapters/blob-store.js';
import type { ModelsRepo } from '../db/models.js';
import type { ImagesRepo } from '../db/images.js';
import type { LabelsRepo } from '../db/labels.js';
import type { AnnotationsRepo } from '../db/annotations.js';
import type { TestPredictionsRepo } from '../db/test-predictions.js';
import type { JobsRepo } from '../db/jobs.js';
import type { TrainingsRepo } from '../db/trainings.js';
import type { TestRunsRepo } from '../db/test-runs.js';
import type { TestBus, TrainingBus } from '../runner/bus.js';
import type { JobLive } from '../runner/runner.js';
import type { EventBus } from '../adapters/event-bus.js';
import type { AgentEvent } from './agent/view.js';

/**
 * What services do with jobs: they queue a row in their transaction and kick; the kick hands it to the JobQueue
 * (adapters/job-queue.ts) and wakes this process's runner, if it has one.
 */
export interface JobControl {
  /** Hand queued rows to the queue and look for work now. */
  kick(): void;
  /** Stop a job running in this process; false when it is not running here. */
  cancel(jobId: number): boolean;
  /** The engine process, figures and last log lines of a job running in this process (the monitor); null when not here. */
  inspect(jobId: number): JobLive | null;
}

/** What services get: configuration, repositories, ports and the clock (tests move time forward). */
export interface Deps {
  config: Config;
  db: Kysely<DB>;
  users: UsersRepo;
  sessions: SessionsRepo;
  tokens: TokensRepo;
  outbox: OutboxRepo;
  oidcStates: ReturnType<typeof oidcStatesRepo>;
  mailer: Mailer;
  blobs: BlobStore;
  models: ModelsRepo;
  images: ImagesRepo;
  labels: LabelsRepo;
  annotations: AnnotationsRepo;
  testPredictions: TestPredictionsRepo;
  jobs: JobsRepo;
  trainings: TrainingsRepo;
  queue: JobControl;
  trainingEvents: TrainingBus;
  testRuns: TestRunsRepo;
  testEvents: TestBus;
  /** Live agent runs (issue 35): phase and ETA, trials, log entries. */
  agentEvents: EventBus<AgentEvent>;
  hasher: PasswordHasher;
  now: () => number;
  log: { info(msg: string): void; warn(msg: string): void; error(obj: unknown, msg?: string): void };
}
