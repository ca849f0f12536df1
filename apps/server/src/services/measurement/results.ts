import { judgeImage, toMillimetres, type MeasuredImage, type MeasurementImagesData, type MeasurementImagesQuery, type ObjectMeasure } from '@loupe/contracts';
import { fail } from '../../errors.js';
import type { Model } from '../../db/models.js';
import type { Deps } from '../deps.js';
import { imageView } from '../gallery/images.js';
import type { TestImageDetail } from '../testing/record.js';
import { assertMeasureModel, measurementSettings } from './settings.js';

type StoredPrediction = TestImageDetail['predictions'][number] & { measure?: ObjectMeasure };

/**
 * A MEASURE run's images with each found object's fields (pixels, and mm when calibrated) and the image's
 * OK/NG under the current tolerances. Judged here, on every read, so a changed tolerance or calibration
 * applies to past runs too; the verdict filter therefore needs the whole run judged before paging.
 */
export async function measurementResults(deps: Deps, model: Model, testId: number, q: MeasurementImagesQuery): Promise<MeasurementImagesData> {
  assertMeasureModel(model);
  if (!(await deps.testRuns.find(model.id, testId))) fail('notFound');
  const { mmPerPx, tolerances } = await measurementSettings(deps, model.id);
  // Tolerances in mm without a calibration cannot be compared with anything.
  const judged = tolerances !== null && (tolerances.unit === 'px' || mmPerPx !== null);
  const { items } = await deps.testRuns.page(testId, 'all', 1, Number.MAX_SAFE_INTEGER);
  const all: MeasuredImage[] = items.map((r) => {
    const detail = JSON.parse(r.detail) as Partial<TestImageDetail>;
    const found = ((detail.predictions ?? []) as StoredPrediction[]).filter((p) => p.measure);
    const objects = found.map((p) => ({ labelId: p.labelId, confidence: p.confidence ?? null, px: p.measure!, mm: mmPerPx !== null ? toMillimetres(p.measure!, mmPerPx) : null }));
    const counts: Record<string, number> = {};
    for (const o of objects) counts[o.labelId] = (counts[o.labelId] ?? 0) + 1;
    const verdict = judged ? judgeImage(objects.map((o) => ({ labelId: o.labelId, values: tolerances!.unit === 'mm' ? o.mm! : o.px })), tolerances!) : null;
    return {
      imageId: r.image_id,
      name: r.name,
      width: r.width,
      height: r.height,
      thumbUrl: imageView(r).thumbnailUrl,
      count: objects.length,
      counts,
      ok: verdict ? verdict.ok : null,
      failures: verdict?.failures ?? [],
      objects: objects.map((o, i) => ({ ...o, failed: verdict?.failed[i] ?? [] })),
    };
  });
  const ok = all.filter((i) => i.ok === true).length;
  const ng = all.filter((i) => i.ok === false).length;
  const verdict = q.verdict ?? 'all';
  const shown = verdict === 'all' ? all : all.filter((i) => i.ok === (verdict === 'ok'));
  const page = q.page ?? 1;
  const size = q.pageSize ?? 24;
  return {
    items: shown.slice((page - 1) * size, page * size),
    total: shown.length,
    images: all.length,
    ok,
    ng,
    judged,
    unit: tolerances?.unit ?? null,
    mmPerPx,
  };
}
