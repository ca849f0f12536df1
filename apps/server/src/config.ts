import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Limits } from '@loupe/contracts';

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export interface PasswordHashingConfig {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

export interface GalleryConfig {
  /** Each image side must be within [minSidePx, maxSidePx] (IMAGE_MIN_SIDE_PX, IMAGE_MAX_SIDE_PX). */
  minSidePx: number;
  maxSidePx: number;
  /** Labels per model (LABEL_MAX). */
  labelMax: number;
  /** SPEC §9 byte limits; only tests lower them (no environment variable). */
  imageMaxBytes: number;
  uploadMaxBytes: number;
  zipMaxUncompressedBytes: number;
  zipEntryMaxBytes: number;
  zipMaxEntries: number;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  /** PostgreSQL schema to use (tests isolate each file in its own); null = the server's default. */
  databaseSchema: string | null;
  /** PostgreSQL connections this process keeps at most (DATABASE_POOL_MAX): servers × this must fit max_connections. */
  databasePoolMax: number;
  smtpUrl: string | null;
  mailFrom: string;
  publicUrl: string;
  deployment: 'cloud' | 'private';
  adminEmail: string | null;
  adminPassword: string | null;
  oidc: OidcConfig | null;
  rateLimit: { max: number; authMax: number; windowMs: number };
  sessionTtlS: number;
  /** Attempts allowed against one verification code before it is burned. */
  codeMaxAttempts: number;
  /** Built web app to serve; null when the folder does not exist. */
  webDir: string | null;
  /** argon2id costs; only tests lower them (no environment variable, so production cannot). */
  passwordHashing: PasswordHashingConfig;
  logLevel: string;
  /** Behind a reverse proxy, take the client address from X-Forwarded-For (rate limits are per address). */
  trustProxy: boolean;
  gallery: GalleryConfig;
  /** Jobs run at once on this host (JOB_CONCURRENCY). */
  jobConcurrency: number;
  engine: EngineConfig;
  /** Per-account sign-in lockout (issue 30 item 7, services/lockout.ts). */
  lockout: LockoutConfig;
  /** Orphan blob and temp file sweep (issue 30 item 8). */
  maintenance: MaintenanceConfig;
  /** Per-account limits on the job slots (issue 30 item 5). */
  fairUse: FairUseConfig;
  /** Redis (REDIS_URL): with it the job queue is BullMQ, job events travel by pub/sub and rate limits are shared. */
  redisUrl: string | null;
  /** Where blobs live (the BlobStore port). */
  storage: StorageConfig;
  /** The job queue (the JobQueue port): leases and retries. */
  queue: QueueConfig;
  /** This process's runner (in the server for `npm start`, or `npm run runner`). */
  runner: RunnerConfig;
}

export interface S3Config {
  /** S3_ENDPOINT (MinIO, Ceph, R2 …); null = AWS's own for the region. */
  endpoint: string | null;
  bucket: string;
  region: string;
  /** S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY; null = the SDK's default chain (instance roles, ~/.aws). */
  accessKeyId: string | null;
  secretAccessKey: string | null;
  /** Path-style URLs (bucket in the path): what most S3-compatible servers want; on by default with an endpoint. */
  forcePathStyle: boolean;
  /** A key prefix ('loupe/') when the bucket is shared. */
  prefix: string;
}

export interface StorageConfig {
  /** null: files under DATA_DIR/blobs (the embedded default). */
  s3: S3Config | null;
  /** Local copies of S3 blobs that the engine reads as files (BLOB_CACHE_DIR); null = DATA_DIR/blob-cache. */
  cacheDir: string | null;
  cacheMaxBytes: number;
  /** How long a signed download URL stays valid (SIGNED_URL_TTL_S). */
  signedUrlTtlS: number;
  /** The origin signed URLs point at (the S3 endpoint's), for the page's Content-Security-Policy; null with files. */
  publicOrigin: string | null;
}

export interface QueueConfig {
  /** 'bullmq' with REDIS_URL (JOB_QUEUE=db keeps the table even then). */
  kind: 'db' | 'bullmq';
  /** A runner proves it is alive this often; a job whose runner stayed silent a whole lease is taken over (JOB_LEASE_S). */
  leaseMs: number;
  /** Runs of one job at most, counting takeovers after a runner died (JOB_MAX_ATTEMPTS). */
  maxAttempts: number;
}

export interface RunnerConfig {
  /** Whether this server runs jobs itself (RUNNER_IN_SERVER, default true; false when runners run apart). */
  inServer: boolean;
  /** This runner's name in leases and logs (RUNNER_ID, default <host>-<pid>). */
  id: string;
  /** Job kinds it takes (RUNNER_KINDS, comma-separated; default all). */
  kinds: JobKindName[];
  /** The device the engine trains on (RUNNER_DEVICE: cpu, cuda, cuda:N; default: the engine's choice). */
  device: string | null;
  /** GPUs one training uses at once (RUNNER_GPUS): above 1 the engine runs under torchrun (DDP). */
  gpus: number;
  /** Where jobs work (RUNNER_WORK_DIR): local scratch, never shared; null = DATA_DIR/jobs. */
  workDir: string | null;
}

export const JOB_KINDS = ['training', 'test', 'export', 'golden', 'analysis', 'agent'] as const;
export type JobKindName = (typeof JOB_KINDS)[number];

export interface FairUseConfig {
  /** Jobs (queued + running, every kind) one account may have at once (JOB_MAX_PER_ACCOUNT). */
  jobsPerAccount: number;
  /** Wall-clock seconds a training may run, by plan: training priority 0 = standard, above 0 = priority (TRAINING_MAX_HOURS or TRAINING_MAX_S, TRAINING_MAX_HOURS_PRIORITY). */
  trainingMaxS: { standard: number; priority: number };
  /** Seconds a golden-sample measurement may run (GOLDEN_TIMEOUT_S). */
  goldenTimeoutS: number;
  /** The host the engine trains on: parameter ceilings follow it (TRAINING_DEVICE cpu|cuda, TRAINING_MAX_IMGSZ_CPU, TRAINING_MAX_EPOCHS). */
  hardware: { cores: number; memoryBytes: number; gpu: boolean };
  maxImgszCpu: number;
  maxEpochs: number;
}

/** Per-account sign-in lockout (services/lockout.ts): free failures, then a doubling lock up to a cap. */
export interface LockoutConfig {
  /** Failures from one address against one account before it is locked for that address (LOCKOUT_ADDRESS_FREE). */
  addressFree: number;
  addressBaseS: number;
  addressCapS: number;
  /** Failures from all addresses together before the account is locked everywhere (LOCKOUT_ACCOUNT_FREE); a short cap. */
  accountFree: number;
  accountBaseS: number;
  accountCapS: number;
  /** A count starts again this long after its last failure. */
  forgetAfterS: number;
}

/** Orphan sweep (services/gallery/blob-cleanup.ts): at start-up and every sweepIntervalS (SWEEP_INTERVAL_S, 0: start-up only). */
export interface MaintenanceConfig {
  sweepIntervalS: number;
  /** Blob and temp files younger than this, and upload claims younger than this, are left alone (ORPHAN_GRACE_S). */
  graceS: number;
}

export interface EngineConfig {
  /** The engine's command before `train --spec …` (ENGINE_COMMAND, a JSON array; tests point it elsewhere). */
  command: string[];
  /** PYTHONPATH for the engine: the repository's engine/ folder (ENGINE_PYTHONPATH). */
  pythonPath: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** OWASP's argon2id baseline (19 MiB, 2 passes). */
export const PRODUCTION_HASHING: PasswordHashingConfig = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

// dist/config.js and src/config.ts sit at the same depth, so this finds apps/web/dist from both.
const DEFAULT_WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/dist');
const DEFAULT_ENGINE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../engine');
const DEFAULT_ENGINE_COMMAND = ['/usr/bin/python3', '-m', 'loupe_engine'];

type Env = Record<string, string | undefined>;

/** Reads and checks every environment variable; throws one ConfigError listing each bad value. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const str = (name: string): string | null => {
    const v = env[name]?.trim();
    return v ? v : null;
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = str(name);
    if (raw === null) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return n;
  };
  const bool = (name: string): boolean => {
    const raw = str(name)?.toLowerCase();
    if (raw === undefined || raw === null) return false;
    if (['1', 'true', 'yes'].includes(raw)) return true;
    if (!['0', 'false', 'no'].includes(raw)) problems.push(`${name} must be true or false, got "${raw}"`);
    return false;
  };
  const url = (name: string, protocols: string[]): string | null => {
    const raw = str(name);
    if (raw === null) return null;
    try {
      const u = new URL(raw);
      if (!protocols.includes(u.protocol)) throw new Error();
      return raw;
    } catch {
      problems.push(`${name} must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}, got "${raw}"`);
      return null;
    }
  };

  const port = int('PORT', 8080, 1, 65535);
  const host = str('HOST') ?? '0.0.0.0';
  const dataDir = path.resolve(str('DATA_DIR') ?? './data');
  const databaseUrl = url('DATABASE_URL', ['postgres:', 'postgresql:']);
  const databaseSchema = str('DATABASE_SCHEMA');
  if (databaseSchema && !/^[a-z_][a-z0-9_]{0,62}$/.test(databaseSchema)) {
    problems.push(`DATABASE_SCHEMA must be a lower-case identifier, got "${databaseSchema}"`);
  }
  const smtpUrl = url('SMTP_URL', ['smtp:', 'smtps:']);
  const publicUrl = (url('PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const deploymentRaw = str('DEPLOYMENT') ?? 'cloud';
  if (deploymentRaw !== 'cloud' && deploymentRaw !== 'private') {
    problems.push(`DEPLOYMENT must be "cloud" or "private", got "${deploymentRaw}"`);
  }
  const deployment = deploymentRaw === 'private' ? 'private' : 'cloud';

  const adminEmail = str('LOUPE_ADMIN_EMAIL')?.toLowerCase() ?? null;
  const adminPassword = str('LOUPE_ADMIN_PASSWORD');
  if (adminEmail && !new RegExp(Limits.emailPattern).test(adminEmail)) {
    problems.push(`LOUPE_ADMIN_EMAIL must be an email address, got "${adminEmail}"`);
  }
  if (adminPassword && !isValidPassword(adminPassword)) {
    problems.push(
      `LOUPE_ADMIN_PASSWORD must be ${Limits.passwordMin} to ${Limits.passwordMax} letters and digits`,
    );
  }
  if ((adminEmail === null) !== (adminPassword === null)) {
    problems.push('LOUPE_ADMIN_EMAIL and LOUPE_ADMIN_PASSWORD must be set together');
  }

  const issuer = url('OIDC_ISSUER', ['http:', 'https:']);
  const clientId = str('OIDC_CLIENT_ID');
  const clientSecret = str('OIDC_CLIENT_SECRET');
  const oidcSet = [env.OIDC_ISSUER, clientId, clientSecret].filter((v) => v?.trim()).length;
  if (oidcSet > 0 && oidcSet < 3) {
    problems.push('OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET must be set together');
  }

  let engineCommand = DEFAULT_ENGINE_COMMAND;
  const engineRaw = str('ENGINE_COMMAND');
  if (engineRaw !== null) {
    try {
      const parsed: unknown = JSON.parse(engineRaw);
      if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((p) => typeof p === 'string' && p)) throw new Error();
      engineCommand = parsed as string[];
    } catch {
      problems.push(`ENGINE_COMMAND must be a JSON array of strings, e.g. ["/usr/bin/python3","-m","loupe_engine"], got "${engineRaw}"`);
    }
  }

  const redisUrl = url('REDIS_URL', ['redis:', 'rediss:']);
  let s3: S3Config | null = null;
  const s3Bucket = str('S3_BUCKET');
  const s3Endpoint = url('S3_ENDPOINT', ['http:', 'https:']);
  const s3Key = str('S3_ACCESS_KEY_ID');
  const s3Secret = str('S3_SECRET_ACCESS_KEY');
  if ((s3Key === null) !== (s3Secret === null)) problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together');
  if (s3Bucket) {
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(s3Bucket)) problems.push(`S3_BUCKET must be a bucket name (3-63 lower-case letters, digits, dots, hyphens), got "${s3Bucket}"`);
    const prefix = str('S3_PREFIX') ?? '';
    if (prefix && !/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*\/$/.test(prefix)) problems.push(`S3_PREFIX must be folder names ending with "/", e.g. "loupe/", got "${prefix}"`);
    s3 = {
      endpoint: s3Endpoint,
      bucket: s3Bucket,
      region: str('S3_REGION') ?? 'us-east-1',
      accessKeyId: s3Key,
      secretAccessKey: s3Secret,
      forcePathStyle: str('S3_FORCE_PATH_STYLE') === null ? s3Endpoint !== null : bool('S3_FORCE_PATH_STYLE'),
      prefix,
    };
  } else if (s3Endpoint || str('S3_REGION') || s3Key) {
    problems.push('S3_BUCKET must be set to store blobs in S3 (S3_ENDPOINT, S3_REGION and the keys alone do nothing)');
  }
  const queueKind = str('JOB_QUEUE') ?? (redisUrl ? 'bullmq' : 'db');
  if (queueKind !== 'db' && queueKind !== 'bullmq') problems.push(`JOB_QUEUE must be "db" or "bullmq", got "${queueKind}"`);
  if (queueKind === 'bullmq' && !redisUrl) problems.push('JOB_QUEUE=bullmq needs REDIS_URL');
  const kindsRaw = str('RUNNER_KINDS');
  const kinds = kindsRaw ? kindsRaw.split(',').map((k) => k.trim()).filter(Boolean) : [...JOB_KINDS];
  const badKinds = kinds.filter((k) => !(JOB_KINDS as readonly string[]).includes(k));
  if (badKinds.length > 0 || kinds.length === 0) problems.push(`RUNNER_KINDS must be a comma-separated list of ${JOB_KINDS.join(', ')}, got "${kindsRaw}"`);
  const runnerDevice = str('RUNNER_DEVICE')?.toLowerCase() ?? null;
  if (runnerDevice !== null && !/^(cpu|cuda(:\d{1,2})?)$/.test(runnerDevice)) problems.push(`RUNNER_DEVICE must be cpu, cuda or cuda:N, got "${runnerDevice}"`);
  const runnerGpus = int('RUNNER_GPUS', 1, 1, 64);
  // Under torchrun each process takes the GPU of its local rank: a named one would put every rank on it.
  if (runnerGpus > 1 && runnerDevice?.startsWith('cuda:')) problems.push(`RUNNER_DEVICE must be cpu or cuda with RUNNER_GPUS above 1 (choose the GPUs with CUDA_VISIBLE_DEVICES), got "${runnerDevice}"`);
  const runnerId = str('RUNNER_ID') ?? `${os.hostname()}-${process.pid}`;
  if (!/^[A-Za-z0-9._:-]{1,40}$/.test(runnerId)) problems.push(`RUNNER_ID must be 1-40 letters, digits, dots, colons, hyphens or underscores, got "${runnerId}"`);

  const trainingDevice = str('TRAINING_DEVICE')?.toLowerCase() ?? 'cpu';
  if (trainingDevice !== 'cpu' && trainingDevice !== 'cuda') problems.push(`TRAINING_DEVICE must be "cpu" or "cuda", got "${trainingDevice}"`);

  const config: Config = {
    port,
    host,
    dataDir,
    databaseUrl,
    databaseSchema,
    databasePoolMax: int('DATABASE_POOL_MAX', 10, 1, 1000),
    smtpUrl,
    mailFrom: str('MAIL_FROM') ?? 'Loupe <no-reply@loupe.local>',
    publicUrl,
    deployment,
    adminEmail,
    adminPassword,
    oidc: issuer && clientId && clientSecret ? { issuer, clientId, clientSecret } : null,
    rateLimit: {
      max: int('RATE_LIMIT_MAX', 1200, 1, 1_000_000),
      authMax: int('RATE_LIMIT_AUTH_MAX', 20, 1, 1_000_000),
      windowMs: int('RATE_LIMIT_WINDOW_MS', 60_000, 1000, 86_400_000),
    },
    sessionTtlS: int('SESSION_TTL_S', 7 * 24 * 3600, 60, 365 * 24 * 3600),
    codeMaxAttempts: int('CODE_MAX_ATTEMPTS', 5, 1, 100),
    // WEB_DIR serves another build of the web app (a second checkout's, or one built for a parallel e2e run).
    webDir: str('WEB_DIR') ?? DEFAULT_WEB_DIR,
    passwordHashing: PRODUCTION_HASHING,
    logLevel: str('LOG_LEVEL') ?? 'info',
    trustProxy: bool('TRUST_PROXY'),
    gallery: {
      minSidePx: int('IMAGE_MIN_SIDE_PX', Limits.imageMinSidePx, 1, 100_000),
      maxSidePx: int('IMAGE_MAX_SIDE_PX', Limits.imageMaxSidePx, 1, 100_000),
      labelMax: int('LABEL_MAX', Limits.labelMax, 1, 10_000),
      imageMaxBytes: Limits.imageMaxBytes,
      uploadMaxBytes: Limits.uploadMaxBytes,
      zipMaxUncompressedBytes: Limits.zipMaxUncompressedBytes,
      zipEntryMaxBytes: Limits.zipEntryMaxBytes,
      zipMaxEntries: Limits.zipMaxEntries,
    },
    jobConcurrency: int('JOB_CONCURRENCY', 1, 1, 64),
    engine: { command: engineCommand, pythonPath: path.resolve(str('ENGINE_PYTHONPATH') ?? DEFAULT_ENGINE_DIR) },
    lockout: {
      addressFree: int('LOCKOUT_ADDRESS_FREE', 10, 1, 1000),
      addressBaseS: 30,
      addressCapS: int('LOCKOUT_ADDRESS_CAP_S', 900, 1, 86_400),
      accountFree: int('LOCKOUT_ACCOUNT_FREE', 20, 1, 1000),
      accountBaseS: 2,
      accountCapS: int('LOCKOUT_ACCOUNT_CAP_S', 60, 1, 3600),
      forgetAfterS: 3600,
    },
    maintenance: {
      sweepIntervalS: int('SWEEP_INTERVAL_S', 3600, 0, 7 * 86_400),
      graceS: int('ORPHAN_GRACE_S', 3600, 60, 7 * 86_400),
    },
    fairUse: {
      jobsPerAccount: int('JOB_MAX_PER_ACCOUNT', Limits.jobsPerAccount, 1, 1000),
      trainingMaxS: {
        // TRAINING_MAX_S, when set, gives the standard plan a budget in seconds, also under an hour (bench/agent.mjs
        // gives the default training exactly the agent's budget this way).
        standard: int('TRAINING_MAX_S', int('TRAINING_MAX_HOURS', Limits.trainingHoursStandard, 1, 72) * 3600, 60, 72 * 3600),
        priority: int('TRAINING_MAX_HOURS_PRIORITY', Limits.trainingHoursPriority, 1, 72) * 3600,
      },
      goldenTimeoutS: int('GOLDEN_TIMEOUT_S', Limits.goldenTimeoutS, 10, 86_400),
      hardware: { cores: os.availableParallelism(), memoryBytes: os.totalmem(), gpu: trainingDevice === 'cuda' },
      maxImgszCpu: int('TRAINING_MAX_IMGSZ_CPU', Limits.trainingImgszCpu, 32, 4096),
      maxEpochs: int('TRAINING_MAX_EPOCHS', Limits.trainingEpochsMax, 1, 10_000),
    },
    redisUrl,
    storage: {
      s3,
      cacheDir: str('BLOB_CACHE_DIR') ? path.resolve(str('BLOB_CACHE_DIR')!) : null,
      cacheMaxBytes: int('BLOB_CACHE_MAX_GB', 20, 1, 100_000) * 2 ** 30,
      // A URL lives up to twice this (s3-blob-store.ts signs per window); S3 caps a signed URL at 7 days.
      signedUrlTtlS: int('SIGNED_URL_TTL_S', 300, 30, 86_400),
      publicOrigin: s3 ? s3Origin(s3) : null,
    },
    queue: {
      kind: queueKind === 'bullmq' ? 'bullmq' : 'db',
      leaseMs: int('JOB_LEASE_S', 30, 2, 3600) * 1000,
      maxAttempts: int('JOB_MAX_ATTEMPTS', 3, 1, 20),
    },
    runner: {
      inServer: str('RUNNER_IN_SERVER') === null ? true : bool('RUNNER_IN_SERVER'),
      id: runnerId,
      kinds: kinds.filter((k): k is JobKindName => (JOB_KINDS as readonly string[]).includes(k)),
      device: runnerDevice,
      gpus: runnerGpus,
      workDir: str('RUNNER_WORK_DIR') ? path.resolve(str('RUNNER_WORK_DIR')!) : null,
    },
  };
  if (config.gallery.minSidePx > config.gallery.maxSidePx) {
    problems.push('IMAGE_MIN_SIDE_PX must not be greater than IMAGE_MAX_SIDE_PX');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** Where signed URLs point: the endpoint with the bucket in the path, or the bucket's own host name. */
function s3Origin(s3: S3Config): string {
  const base = new URL(s3.endpoint ?? `https://s3.${s3.region}.amazonaws.com`);
  if (!s3.forcePathStyle) base.hostname = `${s3.bucket}.${base.hostname}`;
  return base.origin;
}

/** An entry point's configuration: every bad value printed at once, then exit 1 (main.ts, runner-main.ts). */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    process.exit(1);
  }
}

export function isValidPassword(p: string): boolean {
  return p.length >= Limits.passwordMin && p.length <= Limits.passwordMax && new RegExp(Limits.passwordPattern).test(p);
}
