/**
 * Where the open image sits in the model's image list (the gallery list order: newest first, which the list
 * API defines as descending id, the key its `after` paging uses). Only pages around the open image are ever
 * fetched: a model may hold 100,000 images.
 */
export const NAV_PAGE_SIZE = 100;

export interface ListPage<T extends { id: number }> {
  items: readonly T[];
  total: number;
}

/** 1-based page number holding the 0-based `index`. */
export const pageOf = (index: number, pageSize = NAV_PAGE_SIZE) => Math.floor(index / pageSize) + 1;

/** Position of `index` inside its page. */
export const slotOf = (index: number, pageSize = NAV_PAGE_SIZE) => index % pageSize;

export type StepResult = { index: number } | { notice: 'firstImage' | 'lastImage' };

/** One image back or forward; at either end the user is told instead (SPEC §8 "already first/last image"). */
export function step(index: number, direction: -1 | 1, total: number): StepResult {
  const next = index + direction;
  if (next < 0) return { notice: 'firstImage' };
  if (next >= total) return { notice: 'lastImage' };
  return { index: next };
}

/** "n / total" as the page shows it; 0 / 0 while nothing is open. */
export function positionOf(index: number | null, total: number): { n: number; total: number } {
  return { n: index === null || total === 0 ? 0 : Math.min(index, total - 1) + 1, total };
}

/**
 * Index of `imageId` in the id-descending list: a binary search over pages, so opening an image deep in a
 * large model costs log2(pages) requests instead of a walk. Resolves null when the image is not in the list
 * (deleted, or of another model).
 */
export async function locate<T extends { id: number }>(
  imageId: number,
  getPage: (page: number) => Promise<ListPage<T>>,
  pageSize = NAV_PAGE_SIZE,
): Promise<number | null> {
  const first = await getPage(1);
  const found = (items: readonly T[], page: number) => {
    const slot = items.findIndex((i) => i.id === imageId);
    return slot < 0 ? null : (page - 1) * pageSize + slot;
  };
  const inFirst = found(first.items, 1);
  if (inFirst !== null) return inFirst;
  let lo = 2;
  let hi = Math.ceil(first.total / pageSize);
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    const { items } = await getPage(mid);
    const head = items[0];
    const tail = items[items.length - 1];
    // An empty page means the list shrank since the total was counted: look nearer the front.
    if (!head || !tail || imageId > head.id) hi = mid - 1;
    else if (imageId < tail.id) lo = mid + 1;
    else return found(items, mid);
  }
  return null;
}
