import type { ClassResult } from '@loupe/contracts';
import { UNKNOWN_LABEL_COLOR, type LabelLook } from './overlayGeometry';

/**
 * A classification run's per-image result as the cards and the viewer show it: the predicted class and its
 * probability against the image's own class, and every class's probability, highest first.
 */
export type ClassVerdict = 'right' | 'wrong' | 'unknown';

export function classVerdict(c: Pick<ClassResult, 'correct'> | null): ClassVerdict {
  if (!c || c.correct === null) return 'unknown';
  return c.correct ? 'right' : 'wrong';
}

/**
 * A multi-label run's sets (contracts ClassResult `multiLabel`): the classes whose probability reached the
 * test's confidence, and the image's own classes (null: not labelled; [] a confirmed "none of these"). Null for
 * a single-label run. Read loosely: single-label results carry none of these fields.
 */
export function classSetsOf(c: ClassResult): { predicted: number[]; truth: number[] | null } | null {
  const m = c as ClassResult & { multiLabel?: boolean; labelIds?: number[]; truthLabelIds?: number[] | null };
  if (!m.multiLabel) return null;
  return { predicted: m.labelIds ?? [], truth: m.truthLabelIds ?? null };
}

export interface ClassScore extends LabelLook {
  labelId: number;
  score: number;
}

const lookOf = (labels: ReadonlyMap<number, LabelLook>, id: number): LabelLook => labels.get(id) ?? { name: `#${id}`, color: UNKNOWN_LABEL_COLOR };

/** The `limit` most probable classes, highest first (ties by label id, so the order is stable). */
export function topScores(c: Pick<ClassResult, 'scores'>, labels: ReadonlyMap<number, LabelLook>, limit = 5): ClassScore[] {
  return Object.entries(c.scores)
    .map(([id, score]) => ({ labelId: Number(id), score }))
    .filter((s) => Number.isInteger(s.labelId) && Number.isFinite(s.score))
    .sort((a, b) => b.score - a.score || a.labelId - b.labelId)
    .slice(0, limit)
    .map((s) => ({ ...s, ...lookOf(labels, s.labelId) }));
}

export { lookOf };
