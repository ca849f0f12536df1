import { describe, expect, it } from 'vitest';
import { columnsFor, itemRange, rowCount } from './layout';

describe('grid layout', () => {
  it('fits at least one card per row', () => {
    expect(columnsFor(0)).toBe(1);
    expect(columnsFor(180)).toBe(1);
    expect(columnsFor(372)).toBe(2);
    expect(columnsFor(1000)).toBe(5);
  });

  it('sizes 100,000 images without rendering them', () => {
    expect(rowCount(100_000, 6)).toBe(16_667);
    expect(itemRange(16_666, 16_666, 6, 100_000)).toEqual([99_996, 99_999]);
  });

  it('clips the last row to the total', () => {
    expect(itemRange(0, 1, 4, 5)).toEqual([0, 4]);
    expect(itemRange(0, 0, 4, 0)).toEqual([0, -1]);
  });
});
