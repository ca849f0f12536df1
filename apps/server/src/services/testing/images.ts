import type { TestImagesData, TestImagesQuery } from '@loupe/contracts';
import { fail } from '../../errors.js';
import type { Model } from '../../db/models.js';
import type { Deps } from '../deps.js';
import { imageView } from '../gallery/images.js';
import type { TestImageDetail } from './record.js';

/**
 * One page of a run's images (SPEC /testImage): each with the run's detections or instances and the ground
 * truth they were compared with, matched flags on both (classification: the predicted class against the image's), and the gallery's thumbnail and image URLs. Filters: all,
 * withResults (something detected), noResults, errors (a false positive or a missed object).
 */
export async function testRunImages(deps: Deps, model: Model, testId: number, q: TestImagesQuery): Promise<TestImagesData> {
  if (!(await deps.testRuns.find(model.id, testId))) fail('notFound');
  const { items, total } = await deps.testRuns.page(testId, q.filter ?? 'all', q.page ?? 1, q.pageSize ?? 24);
  return {
    total,
    items: items.map((r) => {
      // Images the run has not reached yet have no detail.
      const detail = JSON.parse(r.detail) as Partial<TestImageDetail>;
      const urls = imageView(r);
      return {
        imageId: r.image_id,
        name: r.name,
        width: r.width,
        height: r.height,
        thumbUrl: urls.thumbnailUrl,
        imageUrl: urls.originalUrl,
        predictions: detail.predictions ?? [],
        groundTruth: detail.groundTruth ?? [],
        classification: detail.classification ?? null,
        tp: r.tp,
        fp: r.fp,
        fn: r.fn,
      };
    }),
  };
}
