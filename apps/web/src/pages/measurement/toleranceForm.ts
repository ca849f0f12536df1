import { judgeImage, MeasureFields, type MeasuredImage, type MeasureField, type Range, type Tolerances } from '@loupe/contracts';

/** One label's row of the tolerance form: its count and each field's bounds; null = not bounded. */
export interface LabelRow {
  labelId: number;
  count: { min: number | null; max: number | null };
  fields: Record<MeasureField, { min: number | null; max: number | null }>;
}
export interface ToleranceFormValues {
  count: { min: number | null; max: number | null };
  labels: LabelRow[];
}

const empty = () => ({ min: null, max: null });
const bounds = (r: Range | null | undefined) => ({ min: r?.min ?? null, max: r?.max ?? null });
const bounded = (r: { min: number | null; max: number | null }) => r.min !== null || r.max !== null;

/** The form for `labelIds` (every label gets a row) filled from saved or proposed tolerances. */
export function toForm(t: Tolerances | null | undefined, labelIds: readonly number[]): ToleranceFormValues {
  const byLabel = new Map((t?.labels ?? []).map((l) => [l.labelId, l]));
  return {
    count: bounds(t?.count),
    labels: labelIds.map((labelId) => {
      const l = byLabel.get(labelId);
      return { labelId, count: bounds(l?.count), fields: Object.fromEntries(MeasureFields.map((f) => [f, bounds(l?.fields[f])])) as LabelRow['fields'] };
    }),
  };
}

/** What the form saves: only bounded ranges, only labels with something bounded. */
export function fromForm(v: ToleranceFormValues, unit: Tolerances['unit']): Tolerances {
  const labels = v.labels.flatMap((row) => {
    const fields = Object.fromEntries(MeasureFields.filter((f) => bounded(row.fields[f] ?? empty())).map((f) => [f, { ...row.fields[f] }]));
    const count = bounded(row.count) ? { ...row.count } : null;
    return Object.keys(fields).length > 0 || count ? [{ labelId: row.labelId, count, fields }] : [];
  });
  return { unit, count: bounded(v.count) ? { ...v.count } : null, labels };
}

/**
 * The verdict of each shown image under tolerances being edited, before they are saved: the same judge the
 * server applies (contracts' judgeImage), on the values in the tolerances' unit. Null when they cannot judge
 * (mm without a calibration).
 */
export function previewVerdicts(images: readonly MeasuredImage[], t: Tolerances): Map<number, boolean> | null {
  const out = new Map<number, boolean>();
  for (const img of images) {
    const objects = img.objects.map((o) => ({ labelId: o.labelId, values: (t.unit === 'mm' ? o.mm : o.px) as Record<MeasureField, number> | null }));
    if (objects.some((o) => o.values === null)) return null;
    out.set(img.imageId, judgeImage(objects as { labelId: number; values: Record<MeasureField, number> }[], t).ok);
  }
  return out;
}
