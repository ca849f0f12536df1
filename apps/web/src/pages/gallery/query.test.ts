import { describe, expect, it } from 'vitest';
import { DEFAULT_FILTERS, pagesFor, toImageQuery } from './query';

describe('gallery filters → list query', () => {
  it('leaves the defaults out', () => {
    expect(toImageQuery(DEFAULT_FILTERS, 1)).toEqual({ page: 1, pageSize: 200 });
  });

  it('maps every set filter and trims the name', () => {
    expect(toImageQuery({ filter: 'testedNoResults', split: 'valid', labelId: 7, name: '  cam1 ' }, 3, 50)).toEqual({
      filter: 'testedNoResults',
      split: 'valid',
      labelId: 7,
      name: 'cam1',
      page: 3,
      pageSize: 50,
    });
  });

  it("keeps the 'none' split, which is a real filter (images not yet assigned)", () => {
    expect(toImageQuery({ ...DEFAULT_FILTERS, split: 'none', name: '   ' }, 1)).toEqual({ split: 'none', page: 1, pageSize: 200 });
  });
});

describe('pages of a visible range', () => {
  it('covers the range, crossing page borders', () => {
    expect(pagesFor(0, 9, 10)).toEqual([1]);
    expect(pagesFor(9, 10, 10)).toEqual([1, 2]);
    expect(pagesFor(195, 420, 200)).toEqual([1, 2, 3]);
  });

  it('is empty for an empty range', () => {
    expect(pagesFor(0, -1)).toEqual([]);
  });
});
