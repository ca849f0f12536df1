import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  DatasetPaths,
  MeasurementPaths,
  type CalibrationBody,
  type CalibrationData,
  type GoldenBody,
  type GoldenData,
  type GoldenJobData,
  type ImageListData,
  type MeasurementImagesData,
  type MeasurementImagesQuery,
  type Tolerances,
  type TolerancesData,
} from '@loupe/contracts';
import { api } from '@/api/client';
import { pathOf } from '@/pages/gallery/galleryApi';

const key = (modelId: string) => ['measurement', modelId] as const;

/** Every measurement query of the model: a saved calibration or tolerance re-judges the shown results. */
function useInvalidate(modelId: string) {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: key(modelId) });
}

export function useCalibration(modelId: string) {
  return useQuery({ queryKey: [...key(modelId), 'calibration'], queryFn: () => api.get<CalibrationData>(pathOf(MeasurementPaths.calibration, { modelId })) });
}

/** Silent: the panel shows the server's message (positive numbers, a line inside the image) beside the form. */
export function useCalibrationMutations(modelId: string) {
  const invalidate = useInvalidate(modelId);
  const path = pathOf(MeasurementPaths.calibration, { modelId });
  const save = useMutation({ mutationFn: (body: CalibrationBody) => api.put<CalibrationData>(path, body, { silent: true }), onSuccess: invalidate });
  const remove = useMutation({ mutationFn: () => api.delete<CalibrationData>(path), onSuccess: invalidate });
  return { save, remove };
}

export function useTolerances(modelId: string) {
  return useQuery({ queryKey: [...key(modelId), 'tolerances'], queryFn: () => api.get<TolerancesData>(pathOf(MeasurementPaths.tolerances, { modelId })) });
}

/** Silent: a refused save lists the server's problems (data.problems) in the panel. */
export function useToleranceMutations(modelId: string) {
  const invalidate = useInvalidate(modelId);
  const path = pathOf(MeasurementPaths.tolerances, { modelId });
  const save = useMutation({ mutationFn: (body: Tolerances) => api.put<TolerancesData>(path, body, { silent: true }), onSuccess: invalidate });
  const remove = useMutation({ mutationFn: () => api.delete<TolerancesData>(path), onSuccess: invalidate });
  return { save, remove };
}

/** A golden-sample job that ended without a proposal; the message is the server's reason, in the user's language. */
export class GoldenFailed extends Error {}

/** How often a queued or running golden job is asked about. */
export const GOLDEN_POLL_MS = 500;

/**
 * Golden samples are a job (issue 30): POST queues it and answers at once with its id; this polls the job until
 * it ends and answers its proposal, or throws GoldenFailed with the reason (stopped past the time limit, ...).
 */
export async function measureGolden(modelId: string, body: GoldenBody, pollMs = GOLDEN_POLL_MS): Promise<GoldenData> {
  let job = await api.post<GoldenJobData>(pathOf(MeasurementPaths.golden, { modelId }), body);
  while (job.status === 'queued' || job.status === 'running') {
    await new Promise((r) => setTimeout(r, pollMs));
    job = await api.get<GoldenJobData>(pathOf(MeasurementPaths.goldenJob, { modelId, jobId: job.jobId }));
  }
  if (job.status !== 'succeeded' || !job.result) throw new GoldenFailed(job.error ?? '');
  return job.result;
}

/** Pending from the request until the job has ended (queued behind other jobs included). */
export function useGolden(modelId: string) {
  return useMutation({ mutationFn: (body: GoldenBody) => measureGolden(modelId, body) });
}

export function useMeasurements(modelId: string, testId: number | undefined, query: MeasurementImagesQuery) {
  return useQuery({
    queryKey: [...key(modelId), 'results', testId ?? 0, query],
    queryFn: () => api.get<MeasurementImagesData>(pathOf(MeasurementPaths.results, { modelId, testId: testId! }), { params: { ...query } }),
    enabled: testId !== undefined,
    placeholderData: keepPreviousData,
  });
}

/** The model's images for the calibration picker and the golden samples (the first 200; `labeled` for samples). */
export function useModelImages(modelId: string, labeled: boolean) {
  return useQuery({
    queryKey: [...key(modelId), 'images', labeled],
    queryFn: () => api.get<ImageListData>(pathOf(DatasetPaths.images, { modelId }), { params: { pageSize: 200, ...(labeled ? { filter: 'labeled' } : {}) } }),
  });
}
