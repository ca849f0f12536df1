import { session } from '@/stores/storage';

/**
 * Images chosen on /testImage for the next run on /test (source 'images'). Session storage, per model: the
 * choice survives a reload and the §2 redirect to /test, and can hold thousands of ids (a URL cannot).
 */
const keyOf = (modelId: string) => `loupe.testImages.${modelId}`;

export function chosenImages(modelId: string): number[] {
  const ids = session.getJson<unknown>(keyOf(modelId));
  return Array.isArray(ids) ? ids.filter((id): id is number => Number.isInteger(id) && id > 0) : [];
}

export function chooseImages(modelId: string, ids: readonly number[]): void {
  session.setJson(keyOf(modelId), ids.length > 0 ? [...new Set(ids)] : null);
}
