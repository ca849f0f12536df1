import { Type, type Static } from 'typebox';

/**
 * Measurement (SPEC §1 MEASURE models, §3 annotation box fields; issue 7 item 3). A MEASURE model trains as a
 * segmenter (polygon labels) or a rotated-box detector (rotated boxes); each object it finds in a test is
 * measured by the engine's definitions (engine/README.md "Measurement"), an optional calibration turns pixels
 * into millimetres, and tolerances make each tested image OK or NG. Verdicts are judged when results are read,
 * not when the test ran: changing a tolerance re-judges every run without testing again.
 */
export const MeasurementPaths = {
  /**
   * GET → CalibrationData. PUT CalibrationBody → CalibrationData: either `mmPerPx` typed in, or a `line` drawn
   * on one of the model's images with its real length (mm per pixel = lengthMm / its length in pixels).
   * DELETE → CalibrationData (none): results go back to pixels only.
   */
  calibration: '/api/models/:modelId/measurement/calibration',
  /** GET → TolerancesData. PUT Tolerances → TolerancesData. DELETE → TolerancesData (none: nothing is judged). */
  tolerances: '/api/models/:modelId/measurement/tolerances',
  /**
   * POST GoldenBody → GoldenJobData, at once: measuring the labels of chosen labeled images (the engine's
   * `measure` without a model) is a job of the one job system, stopped past the server's time limit. Its result
   * proposes tolerances in the current unit; nothing is saved.
   */
  golden: '/api/models/:modelId/measurement/golden',
  /** GET → GoldenJobData: poll until `succeeded` (result) or `failed` (error, in the user's language). */
  goldenJob: '/api/models/:modelId/measurement/golden/:jobId',
  /** GET ?verdict=all|ok|ng&page&pageSize → MeasurementImagesData: a MEASURE run's images, measured and judged. */
  results: '/api/models/:modelId/tests/:testId/measurements',
} as const;

/** The SPEC §3 fields of one object, by the engine's names (engine/loupe_engine/measure/fields.py FIELDS). */
export const MeasureFields = ['area', 'major_axis', 'minor_axis', 'angle', 'centroid_x', 'centroid_y'] as const;
export type MeasureField = (typeof MeasureFields)[number];
/** How a field scales with the calibration: lengths and positions by mm/px, the area by its square; angles not. */
export const FieldDimension: Record<MeasureField, 'area' | 'length' | 'angle'> = {
  area: 'area',
  major_axis: 'length',
  minor_axis: 'length',
  angle: 'angle',
  centroid_x: 'length',
  centroid_y: 'length',
};
export type ObjectMeasure = Record<MeasureField, number>;

export const MeasureUnits = ['px', 'mm'] as const;
export type MeasureUnit = (typeof MeasureUnits)[number];

const Num = Type.Number();
const NullNum = Type.Union([Type.Number(), Type.Null()]);
/**
 * A bound that may be null, as one schema with a type list: the server's validator coerces types, and under a
 * number-first union a null bound became 0 (training.ts ParamValue has the same story).
 */
const Bound = Type.Unsafe<number | null>({ type: ['number', 'null'] });
const Id = Type.Integer({ minimum: 1 });

// ---------------------------------------------------------------------------------------------------------
// Calibration

/** A line of known length drawn on an image, in image pixels. */
export const CalibrationLine = Type.Object({
  imageId: Id,
  x1: Num,
  y1: Num,
  x2: Num,
  y2: Num,
  /** The real length of the line, in millimetres (> 0). */
  lengthMm: Num,
});
export type CalibrationLine = Static<typeof CalibrationLine>;

/** Exactly one of the two. */
export const CalibrationBody = Type.Object({ mmPerPx: Type.Optional(Num), line: Type.Optional(CalibrationLine) });
export type CalibrationBody = Static<typeof CalibrationBody>;

export const CalibrationData = Type.Object({
  /** Null: not calibrated; results are in pixels only. */
  mmPerPx: NullNum,
  /** The line it came from (null when typed in), with its length in pixels. */
  line: Type.Union([Type.Object({ ...CalibrationLine.properties, lengthPx: Num }), Type.Null()]),
  updatedAt: Type.Union([Type.String(), Type.Null()]),
});
export type CalibrationData = Static<typeof CalibrationData>;

/** Millimetres per pixel from a drawn line; null when the line has no length. */
export function mmPerPxFromLine(line: Pick<CalibrationLine, 'x1' | 'y1' | 'x2' | 'y2' | 'lengthMm'>): number | null {
  const px = Math.hypot(line.x2 - line.x1, line.y2 - line.y1);
  return px > 0 && Number.isFinite(px) ? line.lengthMm / px : null;
}

/** A pixel measurement in millimetres (lengths × s, area × s², angle unchanged). */
export function toMillimetres(m: ObjectMeasure, mmPerPx: number): ObjectMeasure {
  const out = {} as ObjectMeasure;
  for (const f of MeasureFields) {
    const d = FieldDimension[f];
    out[f] = d === 'angle' ? m[f] : d === 'area' ? m[f] * mmPerPx * mmPerPx : m[f] * mmPerPx;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Tolerances

/** Either bound may be left out (null). For the angle, min > max wraps around 180° (170 to 10). */
export const Range = Type.Object({ min: Type.Optional(Bound), max: Type.Optional(Bound) });
export type Range = Static<typeof Range>;

export const LabelTolerance = Type.Object({
  labelId: Id,
  /** Objects of this label per image. */
  count: Type.Optional(Type.Union([Range, Type.Null()])),
  fields: Type.Record(Type.String(), Range),
});
export type LabelTolerance = Static<typeof LabelTolerance>;

/**
 * What makes an image OK (engine/loupe_engine/measure/tolerance.py semantics): every object's fields within
 * its label's ranges, every label's count and the image's total count within theirs. `unit` is the unit the
 * lengths and areas are in: 'mm' needs a calibration.
 */
export const Tolerances = Type.Object({
  unit: Type.Enum(MeasureUnits),
  count: Type.Optional(Type.Union([Range, Type.Null()])),
  labels: Type.Array(LabelTolerance, { maxItems: 1000 }),
});
export type Tolerances = Static<typeof Tolerances>;
export const TolerancesData = Type.Object({ tolerances: Type.Union([Tolerances, Type.Null()]), updatedAt: Type.Union([Type.String(), Type.Null()]) });
export type TolerancesData = Static<typeof TolerancesData>;

/** A tolerance problem: `field` a path ("labels.0.fields.area.min"), `reason` a validation reason key. */
export interface ToleranceProblem {
  field: string;
  reason: 'type' | 'range' | 'minAboveMax' | 'unknown' | 'labelNotInModel' | 'duplicate' | 'needsCalibration' | 'integer';
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function checkRange(at: string, r: Range | null | undefined, kind: 'count' | 'angle' | 'value', problems: ToleranceProblem[]): void {
  if (r === null || r === undefined) return;
  for (const b of ['min', 'max'] as const) {
    const v = r[b];
    if (v === null || v === undefined) continue;
    if (!isNum(v)) problems.push({ field: `${at}.${b}`, reason: 'type' });
    else if (kind === 'count' && !Number.isInteger(v)) problems.push({ field: `${at}.${b}`, reason: 'integer' });
    else if ((kind === 'count' && v < 0) || (kind === 'angle' && (v < 0 || v > 180))) problems.push({ field: `${at}.${b}`, reason: 'range' });
  }
  if (kind !== 'angle' && isNum(r.min) && isNum(r.max) && r.min > r.max) problems.push({ field: `${at}.min`, reason: 'minAboveMax' });
}

/** Checks tolerances against the model's labels and calibration; one problem per bad value. */
export function checkTolerances(t: Tolerances, labelIds: ReadonlySet<number>, calibrated: boolean): ToleranceProblem[] {
  const problems: ToleranceProblem[] = [];
  if (t.unit === 'mm' && !calibrated) problems.push({ field: 'unit', reason: 'needsCalibration' });
  checkRange('count', t.count, 'count', problems);
  const seen = new Set<number>();
  t.labels.forEach((l, i) => {
    if (!labelIds.has(l.labelId)) problems.push({ field: `labels.${i}.labelId`, reason: 'labelNotInModel' });
    else if (seen.has(l.labelId)) problems.push({ field: `labels.${i}.labelId`, reason: 'duplicate' });
    seen.add(l.labelId);
    checkRange(`labels.${i}.count`, l.count, 'count', problems);
    for (const [f, r] of Object.entries(l.fields)) {
      if (!(MeasureFields as readonly string[]).includes(f)) problems.push({ field: `labels.${i}.fields.${f}`, reason: 'unknown' });
      else checkRange(`labels.${i}.fields.${f}`, r, f === 'angle' ? 'angle' : 'value', problems);
    }
  });
  return problems;
}

/** The engine's `inside` (tolerance.py): bounds inclusive within 1e-9; an angle range with min > max wraps. */
export function inRange(value: number, r: Range | null | undefined, angle = false): boolean {
  if (!r) return true;
  const lo = r.min ?? null;
  const hi = r.max ?? null;
  if (angle && lo !== null && hi !== null && lo > hi) return value >= lo || value <= hi;
  return (lo === null || value >= lo - 1e-9) && (hi === null || value <= hi + 1e-9);
}

/** Why an image is NG: an object's field (index = the object's place in the image's list) or a count. */
export const Failure = Type.Object({
  kind: Type.Union([Type.Literal('field'), Type.Literal('count')]),
  /** The object's label, the counted label, or null for the image's total count. */
  labelId: Type.Union([Type.Integer(), Type.Null()]),
  index: Type.Union([Type.Integer(), Type.Null()]),
  field: Type.Union([Type.Enum(MeasureFields), Type.Null()]),
  value: Num,
  range: Range,
});
export type Failure = Static<typeof Failure>;

export interface JudgedImage {
  ok: boolean;
  failures: Failure[];
  /** Per object: the fields out of tolerance. */
  failed: MeasureField[][];
  counts: Record<string, number>;
}

/** OK/NG of one image: `objects` with their label and their values in the tolerances' unit. */
export function judgeImage(objects: readonly { labelId: number; values: ObjectMeasure }[], t: Tolerances): JudgedImage {
  const byLabel = new Map(t.labels.map((l) => [l.labelId, l]));
  const failures: Failure[] = [];
  const counts: Record<string, number> = {};
  const failed = objects.map((o, index) => {
    counts[o.labelId] = (counts[o.labelId] ?? 0) + 1;
    const fields = byLabel.get(o.labelId)?.fields ?? {};
    const out: MeasureField[] = [];
    for (const f of MeasureFields) {
      const r = fields[f];
      if (r && !inRange(o.values[f], r, f === 'angle')) {
        out.push(f);
        failures.push({ kind: 'field', labelId: o.labelId, index, field: f, value: o.values[f], range: r });
      }
    }
    return out;
  });
  if (t.count && !inRange(objects.length, t.count)) failures.push({ kind: 'count', labelId: null, index: null, field: null, value: objects.length, range: t.count });
  for (const l of t.labels) {
    const n = counts[l.labelId] ?? 0;
    if (l.count && !inRange(n, l.count)) failures.push({ kind: 'count', labelId: l.labelId, index: null, field: null, value: n, range: l.count });
  }
  return { ok: failures.length === 0, failures, failed, counts };
}

// ---------------------------------------------------------------------------------------------------------
// Golden samples

export const GoldenBody = Type.Object({
  imageIds: Type.Array(Id, { minItems: 1, maxItems: 1000 }),
  /** Widening of each observed range, percent: min − x %, max + x % (angles: x % of 180°). */
  marginPct: Type.Number({ minimum: 0, maximum: 100 }),
});
export type GoldenBody = Static<typeof GoldenBody>;

/** Observed per label: objects measured and each field's min and max (in `unit`). */
export const GoldenLabelStats = Type.Object({
  labelId: Type.Integer(),
  objects: Type.Integer(),
  countMin: Type.Integer(),
  countMax: Type.Integer(),
  fields: Type.Record(Type.String(), Type.Object({ min: Num, max: Num })),
});
export type GoldenLabelStats = Static<typeof GoldenLabelStats>;
export const GoldenData = Type.Object({
  images: Type.Integer(),
  objects: Type.Integer(),
  unit: Type.Enum(MeasureUnits),
  stats: Type.Array(GoldenLabelStats),
  proposal: Tolerances,
});
export type GoldenData = Static<typeof GoldenData>;

export const GoldenJobParams = Type.Object({ modelId: Type.Integer({ minimum: 1 }), jobId: Type.Integer({ minimum: 1 }) });
export type GoldenJobParams = Static<typeof GoldenJobParams>;
export const GoldenJobStatuses = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type GoldenJobStatus = (typeof GoldenJobStatuses)[number];
/** A golden-sample measurement job: its state, then its proposal (succeeded) or why it failed. */
export const GoldenJobData = Type.Object({
  jobId: Type.Integer(),
  status: Type.Enum(GoldenJobStatuses),
  result: Type.Union([GoldenData, Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
});
export type GoldenJobData = Static<typeof GoldenJobData>;

const round = (v: number, digits = 4) => Math.round(v * 10 ** digits) / 10 ** digits;

/**
 * The smallest arc (degrees mod 180) holding every angle: [start, end], wrapping when start > end. Without
 * it, parts lying near 0° and near 179° (the same direction) would propose 0..179, which accepts everything.
 */
export function angleArc(angles: readonly number[]): { start: number; end: number; width: number } {
  const a = [...angles].map((v) => ((v % 180) + 180) % 180).sort((x, y) => x - y);
  let gap = -1;
  let at = 0;
  a.forEach((v, i) => {
    const next = i + 1 < a.length ? a[i + 1]! : a[0]! + 180;
    if (next - v > gap) [gap, at] = [next - v, i];
  });
  const start = a[(at + 1) % a.length]!;
  const end = a[at]!;
  return { start, end, width: 180 - gap };
}

/** Minor/major axis ratio from which a sample counts as round or square (its angle flips with noise). */
export const ROUNDISH = 0.9;

/**
 * Tolerances proposed from golden samples: each label's count between its fewest and most objects per image,
 * the total count likewise, and each field from min − x % to max + x % (of |value|; angles x % of 180°, on the
 * smallest arc; no angle range when the arc with its margins covers the half circle, or when a sample is about
 * as wide as long).
 */
export function proposeTolerances(
  images: readonly { objects: readonly { labelId: number; values: ObjectMeasure }[] }[],
  labelIds: readonly number[],
  marginPct: number,
  unit: MeasureUnit,
): { stats: GoldenLabelStats[]; proposal: Tolerances } {
  const m = marginPct / 100;
  const totals = images.map((i) => i.objects.length);
  const stats: GoldenLabelStats[] = [];
  const labels: LabelTolerance[] = [];
  for (const labelId of labelIds) {
    const objs = images.flatMap((i) => i.objects.filter((o) => o.labelId === labelId));
    if (objs.length === 0) continue;
    const perImage = images.map((i) => i.objects.filter((o) => o.labelId === labelId).length);
    const fields: GoldenLabelStats['fields'] = {};
    const ranges: Record<string, Range> = {};
    for (const f of MeasureFields) {
      const vals = objs.map((o) => o.values[f]);
      const lo = Math.min(...vals);
      const hi = Math.max(...vals);
      fields[f] = { min: round(lo), max: round(hi) };
      if (f === 'angle') {
        // A part about as wide as long (a disc, a square) has no direction its angle could keep: no range.
        if (objs.some((o) => o.values.minor_axis >= ROUNDISH * o.values.major_axis)) continue;
        const arc = angleArc(vals);
        const w = 180 * m;
        if (arc.width + 2 * w < 180) ranges[f] = { min: round((((arc.start - w) % 180) + 180) % 180), max: round((arc.end + w) % 180) };
      } else {
        ranges[f] = { min: round(lo - Math.abs(lo) * m), max: round(hi + Math.abs(hi) * m) };
      }
    }
    stats.push({ labelId, objects: objs.length, countMin: Math.min(...perImage), countMax: Math.max(...perImage), fields });
    labels.push({ labelId, count: { min: Math.min(...perImage), max: Math.max(...perImage) }, fields: ranges });
  }
  const count = totals.length ? { min: Math.min(...totals), max: Math.max(...totals) } : null;
  return { stats, proposal: { unit, count, labels } };
}

// ---------------------------------------------------------------------------------------------------------
// Results of a test run

export const MeasurementVerdicts = ['all', 'ok', 'ng'] as const;
export type MeasurementVerdict = (typeof MeasurementVerdicts)[number];
export const MeasurementImagesQuery = Type.Object({
  verdict: Type.Optional(Type.Enum(MeasurementVerdicts)),
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 24 })),
});
export type MeasurementImagesQuery = Static<typeof MeasurementImagesQuery>;

const Measure = Type.Record(Type.String(), Num);
export const MeasuredObject = Type.Object({
  labelId: Type.Integer(),
  confidence: NullNum,
  /** The fields in pixels (area in px²). */
  px: Measure,
  /** The same in millimetres (area in mm²) when calibrated, else null. */
  mm: Type.Union([Measure, Type.Null()]),
  /** Fields out of tolerance (empty when OK or not judged). */
  failed: Type.Array(Type.Enum(MeasureFields)),
});
export type MeasuredObject = Static<typeof MeasuredObject>;

export const MeasuredImage = Type.Object({
  imageId: Type.Integer(),
  name: Type.String(),
  width: Type.Integer(),
  height: Type.Integer(),
  thumbUrl: Type.String(),
  /** SPEC §3 count: the objects found; `counts` by label id. */
  count: Type.Integer(),
  counts: Type.Record(Type.String(), Type.Integer()),
  /** Null when nothing is judged (no tolerances, or tolerances in mm without a calibration). */
  ok: Type.Union([Type.Boolean(), Type.Null()]),
  failures: Type.Array(Failure),
  objects: Type.Array(MeasuredObject),
});
export type MeasuredImage = Static<typeof MeasuredImage>;

export const MeasurementImagesData = Type.Object({
  items: Type.Array(MeasuredImage),
  /** Images passing the verdict filter. */
  total: Type.Integer(),
  /** The whole run: images, OK and NG (0 and 0 when not judged). */
  images: Type.Integer(),
  ok: Type.Integer(),
  ng: Type.Integer(),
  judged: Type.Boolean(),
  /** The unit the tolerances compare in (null without tolerances). */
  unit: Type.Union([Type.Enum(MeasureUnits), Type.Null()]),
  mmPerPx: NullNum,
});
export type MeasurementImagesData = Static<typeof MeasurementImagesData>;
