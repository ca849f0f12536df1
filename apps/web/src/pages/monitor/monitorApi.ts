import { useQuery } from '@tanstack/react-query';
import { MonitorPaths, MonitorPollMs, type MonitorActiveJob, type MonitorData, type MonitorEpoch, type ProjectStatus, type TrainingEpochData } from '@loupe/contracts';
import { api } from '@/api/client';
import { pathOf } from '@/pages/gallery/galleryApi';
import { stepPath } from '@/routes/steps';

/**
 * The open model's monitor, asked again every MonitorPollMs (2 s). Polling rather than the training/test SSE
 * streams: one answer carries every kind of job (trainings, tests, exports), the queue position and the
 * engine's CPU, memory and log, which those streams do not carry, and the CPU share is measured between two
 * samples anyway. It keeps polling while nothing runs, so a job started elsewhere (another tab, the API) shows.
 */
export function useMonitor(modelId: string) {
  return useQuery({
    queryKey: ['monitor', modelId],
    queryFn: () => api.get<MonitorData>(pathOf(MonitorPaths.model, { modelId })),
    refetchInterval: MonitorPollMs,
    refetchIntervalInBackground: false,
  });
}

/** The page a job belongs to: its training's page, the test page, or the model download. */
export function pageOf(kind: string, type: string | undefined): string {
  if (kind === 'training') return stepPath('train', type);
  if (kind === 'test') return stepPath('test', type);
  return '/download/downloadModel';
}

/** The epochs as the chart helpers take them. */
export const asHistory = (curves: readonly MonitorEpoch[], epochs: number): TrainingEpochData[] =>
  curves.map((c) => ({ epoch: c.epoch, epochs, metrics: c.metrics, etaS: null }));

/** 1536 → "1.5 KB"; 734003200 → "700 MB". */
export function bytes(n: number | null | undefined): string {
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) return '—';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return `${v >= 100 || i === 0 ? Math.round(v) : v.toFixed(1)} ${units[i]}`;
}

/** The project status (SPEC §4: menus lock while training or testing) that the model's active jobs mean; exports lock nothing. */
export function projectStatusOf(active: readonly Pick<MonitorActiveJob, 'kind'>[]): ProjectStatus {
  if (active.some((j) => j.kind === 'training')) return 'training';
  if (active.some((j) => j.kind === 'test')) return 'testing';
  return 'no';
}
