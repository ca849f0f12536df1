import { Limits, type ImageFilter, type ImageListQuery, type Split } from '@loupe/contracts';

/** What the gallery's filter bar holds. */
export interface GalleryFilters {
  filter: ImageFilter;
  split: Split | 'any';
  labelId?: number;
  name: string;
}

export const DEFAULT_FILTERS: GalleryFilters = { filter: 'all', split: 'any', name: '' };

/** Grid pages are fetched by number so that a jump to the middle of 100,000 images loads only what shows. */
export const PAGE_SIZE: number = Limits.imageListPageMax;

/**
 * The list query for the bar's state: defaults are left out so that the server's defaults apply and the
 * query key of "everything" stays the same however the user got there.
 */
export function toImageQuery(filters: GalleryFilters, page: number, pageSize = PAGE_SIZE): ImageListQuery {
  const query: ImageListQuery = { page, pageSize };
  if (filters.filter !== 'all') query.filter = filters.filter;
  if (filters.split !== 'any') query.split = filters.split;
  if (filters.labelId !== undefined) query.labelId = filters.labelId;
  const name = filters.name.trim();
  if (name) query.name = name;
  return query;
}

/** Page numbers (1-based) holding the items from `first` to `last` (0-based, inclusive). */
export function pagesFor(first: number, last: number, pageSize = PAGE_SIZE): number[] {
  if (last < first || last < 0) return [];
  const from = Math.floor(Math.max(0, first) / pageSize) + 1;
  const to = Math.floor(last / pageSize) + 1;
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
