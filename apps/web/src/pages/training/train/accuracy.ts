import { Limits, type TrainingData } from '@loupe/contracts';
import { isActive } from '../trainingApi';

/** Why a training shows no accuracy (SPEC §5): too few labeled images, not succeeded, or still running. */
export type AccuracyReason = 'fewLabeled' | 'notSucceeded' | 'running' | 'unavailable';

export function accuracyReason(t: TrainingData): AccuracyReason | null {
  if (t.accuracy !== null) return null;
  if (isActive(t.status)) return 'running';
  if (t.status !== 'succeeded') return 'notSucceeded';
  if (t.labeledImages < Limits.labeledForAccuracy) return 'fewLabeled';
  return 'unavailable';
}

/** Newest first by serial number, whatever order the list came in. */
export const newestFirst = (trainings: readonly TrainingData[]) => [...trainings].sort((a, b) => b.serialNo - a.serialNo);

/** The accuracy trend (SPEC §9): the last 10 succeeded trainings that have an accuracy, oldest first. */
export function trendPoints(trainings: readonly TrainingData[]): { version: string; accuracy: number }[] {
  return newestFirst(trainings)
    .filter((t) => t.status === 'succeeded' && t.accuracy !== null)
    .slice(0, Limits.accuracyTrendCount)
    .reverse()
    .map((t) => ({ version: t.version, accuracy: t.accuracy! }));
}
