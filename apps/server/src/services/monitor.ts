import type { Language, MonitorActiveJob, MonitorData, MonitorGpu, MonitorHistoryItem, MonitorJobKind } from '@loupe/contracts';
import { MonitorHistoryMax, MonitorJobKinds } from '@loupe/contracts';
import type { Job } from '../db/jobs.js';
import type { Model } from '../db/models.js';
import { monitorRepo } from '../db/monitor.js';
import { failureText } from '../i18n.js';
import { publicFailure, publicLogLine, type EngineGpu } from '../runner/engine.js';
import type { Deps } from './deps.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const int = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.round(v) : 0);

/** What a job's payload names: the training it runs, the test run or the pack (runner/*-job.ts payloads). */
interface Payload {
  trainingId?: number;
  testRunId?: number;
  packId?: number;
}

function parse<T>(text: string | null, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function gpuView(g: EngineGpu | null): MonitorGpu | null {
  if (!g) return null;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const i = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.round(v) : null);
  return { name: g.name.slice(0, 120), utilPercent: n(g.util_percent), memoryUsedBytes: i(g.memory_used_bytes), memoryTotalBytes: i(g.memory_total_bytes) };
}

/**
 * The monitor of one model (the caller owns it: routes/monitor.ts checks): its queued and running jobs with the
 * engine's live figures from the runner (in this process), and its last MonitorHistoryMax jobs, newest first.
 */
export async function modelMonitor(deps: Deps, model: Model, lang: Language): Promise<MonitorData> {
  const repo = monitorRepo(deps.db);
  const jobs = await repo.modelJobs(model.id, [...MonitorJobKinds], MonitorHistoryMax);
  // A model's queued or running jobs are among its newest; older ones left active would be a dead server's, failed on start.
  const { trainings, tests, packs } = await repo.subjects(model.id);
  const training = new Map(trainings.map((t) => [t.id, t]));
  const test = new Map(tests.map((t) => [t.id, t]));
  const pack = new Map(packs.map((p) => [p.id, p]));

  const subject = (job: Job) => {
    const p = parse<Payload>(job.payload, {});
    if (job.kind === 'training') return { trainingId: p.trainingId ?? null, subjectId: p.trainingId ?? null, error: training.get(p.trainingId ?? 0)?.error ?? null };
    if (job.kind === 'test') {
      const r = test.get(p.testRunId ?? 0);
      return { trainingId: r?.training_id ?? null, subjectId: r?.id ?? null, error: r?.error ?? null };
    }
    const k = pack.get(p.packId ?? 0);
    return { trainingId: k?.training_id ?? null, subjectId: k?.id ?? null, error: k?.error ?? null };
  };
  const versionOf = (trainingId: number | null) => {
    const t = trainingId === null ? undefined : training.get(trainingId);
    return t ? `v${t.version}` : null;
  };
  const now = deps.now();

  const history: MonitorHistoryItem[] = jobs.map((job) => {
    const s = subject(job);
    const stored = job.error ?? s.error;
    const end = job.finished_at ?? (job.state === 'running' ? now : null);
    return {
      jobId: job.id,
      kind: job.kind as MonitorJobKind,
      state: job.state,
      trainingId: s.trainingId,
      version: versionOf(s.trainingId),
      subjectId: s.subjectId,
      queuedAt: iso(job.created_at)!,
      startedAt: iso(job.started_at),
      endedAt: iso(job.finished_at),
      durationS: job.started_at !== null && end !== null ? Math.round((end - job.started_at) / 100) / 10 : null,
      error: job.state === 'succeeded' || stored === null ? null : failureText(lang, publicFailure(stored)),
    };
  });

  let gpuPresent = deps.config.fairUse.hardware.gpu;
  const active: MonitorActiveJob[] = [];
  // Oldest first: the job that runs now above the ones waiting behind it.
  for (const job of [...jobs].reverse()) {
    if (job.state !== 'queued' && job.state !== 'running') continue;
    const s = subject(job);
    const progress = parse<Record<string, unknown>>(job.progress, {});
    const t = job.kind === 'training' && s.trainingId !== null ? training.get(s.trainingId) : undefined;
    const live = job.state === 'running' ? deps.queue.inspect(job.id) : null;
    const gpu = gpuView(live?.gpu ?? null);
    if (gpu) gpuPresent = true;
    const curves =
      t && job.state === 'running'
        ? (await deps.trainings.epochs(t.id)).map((e) => ({ epoch: e.epoch, metrics: parse<Record<string, unknown>>(e.metrics, {}) }))
        : [];
    const r = job.kind === 'test' ? test.get(s.subjectId ?? 0) : undefined;
    active.push({
      jobId: job.id,
      kind: job.kind as MonitorJobKind,
      state: job.state,
      trainingId: s.trainingId,
      version: versionOf(s.trainingId),
      phase: job.state === 'queued' ? 'queued' : t ? t.phase : job.kind === 'test' ? 'testing' : 'packing',
      epoch: t?.epoch ?? 0,
      epochs: t?.epochs ?? 0,
      done: r ? r.done : int(progress.done),
      total: r ? r.image_count : int(progress.total),
      etaS: t?.eta_s ?? null,
      // 1 + the jobs taken before it; the queue's turns between accounts of one priority (job-queue-db.ts) may move it a place.
      queuePosition: job.state === 'queued' ? (await repo.queuedAhead(job)) + 1 : null,
      queuedAt: iso(job.created_at)!,
      startedAt: iso(job.started_at),
      curves,
      process: live?.pid ? { pid: live.pid, cpuPercent: live.figures?.cpuPercent ?? null, rssBytes: live.figures?.rssBytes ?? null } : null,
      gpu,
      log: (live?.logs ?? []).map(publicLogLine),
    });
  }
  return { active, history, gpuPresent };
}
