import {
  checkTolerances,
  mmPerPxFromLine,
  type CalibrationBody,
  type CalibrationData,
  type CalibrationLine,
  type Language,
  type Tolerances,
  type TolerancesData,
} from '@loupe/contracts';
import { AppError, fail } from '../../errors.js';
import { errorMessage, fieldName, reasonText } from '../../i18n.js';
import type { Model } from '../../db/models.js';
import type { Deps } from '../deps.js';
import { measurementRepo } from './repository.js';

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString());
const positive = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;

/** Calibration and tolerances belong to MEASURE models only. */
export function assertMeasureModel(model: Model): void {
  if (model.type !== 'MEASURE') fail('wrongModelType');
}

/** The model's settings as used by results: mm per pixel (or null) and the tolerances (or null). */
export async function measurementSettings(deps: Deps, modelId: number): Promise<{ mmPerPx: number | null; tolerances: Tolerances | null }> {
  const row = await measurementRepo(deps.db).find(modelId);
  return { mmPerPx: row?.mm_per_px ?? null, tolerances: row?.tolerances ? (JSON.parse(row.tolerances) as Tolerances) : null };
}

export async function getCalibration(deps: Deps, model: Model): Promise<CalibrationData> {
  assertMeasureModel(model);
  const row = await measurementRepo(deps.db).find(model.id);
  const line = row?.calibration_line ? (JSON.parse(row.calibration_line) as CalibrationLine) : null;
  return {
    mmPerPx: row?.mm_per_px ?? null,
    line: line ? { ...line, lengthPx: Math.hypot(line.x2 - line.x1, line.y2 - line.y1) } : null,
    updatedAt: iso(row?.calibration_updated_at),
  };
}

/**
 * Sets the scale: typed in, or from a line drawn on one of the model's images (inside it, with a length) and
 * its real length. Every number must be a positive finite one; nothing is saved otherwise.
 */
export async function putCalibration(deps: Deps, model: Model, body: CalibrationBody): Promise<CalibrationData> {
  assertMeasureModel(model);
  if ((body.mmPerPx === undefined) === (body.line === undefined)) fail('validation', { field: 'mmPerPx', reason: 'oneOf' });
  let mmPerPx: number;
  let line: CalibrationLine | null = null;
  if (body.line) {
    line = body.line;
    if (!positive(line.lengthMm)) fail('validation', { field: 'lengthMm', reason: 'positive' });
    const [image] = await deps.images.byIds(model.id, [line.imageId]);
    if (!image) fail('validation', { field: 'imageId', reason: 'invalid' });
    const inside = (x: number, y: number) => Number.isFinite(x) && Number.isFinite(y) && x >= 0 && y >= 0 && x <= image.width && y <= image.height;
    if (!inside(line.x1, line.y1) || !inside(line.x2, line.y2)) fail('validation', { field: 'line', reason: 'outsideImage' });
    const scale = mmPerPxFromLine(line);
    if (scale === null) fail('validation', { field: 'line', reason: 'zeroLength' });
    mmPerPx = scale;
    line = { imageId: line.imageId, x1: line.x1, y1: line.y1, x2: line.x2, y2: line.y2, lengthMm: line.lengthMm };
  } else {
    mmPerPx = body.mmPerPx!;
  }
  if (!positive(mmPerPx)) fail('validation', { field: 'mmPerPx', reason: 'positive' });
  await measurementRepo(deps.db).save(model.id, { mm_per_px: mmPerPx, calibration_line: line ? JSON.stringify(line) : null, calibration_updated_at: deps.now() });
  return getCalibration(deps, model);
}

/** Back to pixels. Tolerances in mm stay saved but judge nothing until a calibration exists again. */
export async function deleteCalibration(deps: Deps, model: Model): Promise<CalibrationData> {
  assertMeasureModel(model);
  await measurementRepo(deps.db).save(model.id, { mm_per_px: null, calibration_line: null, calibration_updated_at: deps.now() });
  return getCalibration(deps, model);
}

export async function getTolerances(deps: Deps, model: Model): Promise<TolerancesData> {
  assertMeasureModel(model);
  const row = await measurementRepo(deps.db).find(model.id);
  return { tolerances: row?.tolerances ? (JSON.parse(row.tolerances) as Tolerances) : null, updatedAt: iso(row?.tolerances_updated_at) };
}

/**
 * Saves tolerances checked by contracts' checkTolerances against the model's labels and calibration: a
 * validation error whose data.problems holds one message per problem in the caller's language ("disc: Area
 * minimum: minimum is above maximum"); the envelope's message is the first.
 */
export async function putTolerances(deps: Deps, model: Model, body: Tolerances, lang: Language): Promise<TolerancesData> {
  assertMeasureModel(model);
  const labels = await deps.labels.list(model.id);
  const { mmPerPx } = await measurementSettings(deps, model.id);
  const problems = checkTolerances(body, new Set(labels.map((l) => l.id)), mmPerPx !== null);
  if (problems.length > 0) {
    const nameOf = new Map(labels.map((l) => [l.id, l.name]));
    const field = (path: string) => {
      const [head, index, part, key, bound] = path.split('.');
      if (head !== 'labels') return fieldName(lang, head === 'count' ? 'count' : head!) + (index ? ` ${fieldName(lang, index)}` : '');
      const label = nameOf.get(body.labels[Number(index)]!.labelId) ?? `#${Number(index) + 1}`;
      if (part === 'labelId') return `${fieldName(lang, 'labelId')} ${label}`;
      if (part === 'count') return `${label}: ${fieldName(lang, 'count')} ${fieldName(lang, key!)}`;
      return `${label}: ${fieldName(lang, key!)}${bound ? ` ${fieldName(lang, bound)}` : ''}`;
    };
    const messages = problems.map((p) => ({ ...p, message: errorMessage(lang, 'validation', { field: field(p.field), reason: reasonText(lang, p.reason) }) }));
    throw new AppError('validation', { field: field(problems[0]!.field), reason: problems[0]!.reason }, { problems: messages });
  }
  // Only what the contract knows is kept (no stray keys inside the JSON column).
  const clean: Tolerances = {
    unit: body.unit,
    count: body.count ?? null,
    labels: body.labels.map((l) => ({ labelId: l.labelId, count: l.count ?? null, fields: Object.fromEntries(Object.entries(l.fields).map(([f, r]) => [f, { min: r.min ?? null, max: r.max ?? null }])) })),
  };
  await measurementRepo(deps.db).save(model.id, { tolerances: JSON.stringify(clean), tolerances_updated_at: deps.now() });
  return getTolerances(deps, model);
}

export async function deleteTolerances(deps: Deps, model: Model): Promise<TolerancesData> {
  assertMeasureModel(model);
  await measurementRepo(deps.db).save(model.id, { tolerances: null, tolerances_updated_at: deps.now() });
  return getTolerances(deps, model);
}
