/** Auto-split ratios as the dialog edits them: whole percentages. */
export interface SplitPercents {
  train: number;
  valid: number;
  test: number;
}

export const DEFAULT_PERCENTS: SplitPercents = { train: 70, valid: 20, test: 10 };

export type RatioProblem = 'range' | 'sum' | 'trainZero' | 'validZero';

/**
 * Why these percentages cannot be sent, or null. Each label needs at least one train and one validation
 * image (SPEC §5), so both shares must be above zero; the test share may be zero.
 */
export function ratioProblem(p: SplitPercents): RatioProblem | null {
  const values = [p.train, p.valid, p.test];
  if (values.some((v) => !Number.isFinite(v) || v < 0 || v > 100)) return 'range';
  if (Math.round(values.reduce((a, b) => a + b, 0) * 1000) !== 100_000) return 'sum';
  if (p.train <= 0) return 'trainZero';
  if (p.valid <= 0) return 'validZero';
  return null;
}

/** The body's ratios (each 0–1, summing to 1). */
export function toRatios(p: SplitPercents): SplitPercents {
  return { train: p.train / 100, valid: p.valid / 100, test: p.test / 100 };
}
