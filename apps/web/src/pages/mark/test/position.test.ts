import { describe, expect, it } from 'vitest';
import { locate, pageOf, positionOf, slotOf, step, type ListPage } from '../navigation/position';

/** A newest-first list of `total` ids (total … 1), served in pages of `size`; counts the pages asked for. */
function list(total: number, size: number, skip: ReadonlySet<number> = new Set()) {
  const ids = Array.from({ length: total }, (_, i) => total - i).filter((id) => !skip.has(id));
  const asked: number[] = [];
  const getPage = async (page: number): Promise<ListPage<{ id: number }>> => {
    asked.push(page);
    return { items: ids.slice((page - 1) * size, page * size).map((id) => ({ id })), total: ids.length };
  };
  return { ids, asked, getPage };
}

describe('image position', () => {
  it('maps an index to its page and slot', () => {
    expect([pageOf(0, 100), slotOf(0, 100)]).toEqual([1, 0]);
    expect([pageOf(99, 100), slotOf(99, 100)]).toEqual([1, 99]);
    expect([pageOf(100, 100), slotOf(100, 100)]).toEqual([2, 0]);
  });

  it('steps within the list and names the end it hits', () => {
    expect(step(0, 1, 3)).toEqual({ index: 1 });
    expect(step(2, -1, 3)).toEqual({ index: 1 });
    expect(step(0, -1, 3)).toEqual({ notice: 'firstImage' });
    expect(step(2, 1, 3)).toEqual({ notice: 'lastImage' });
    expect(step(0, 1, 1)).toEqual({ notice: 'lastImage' });
  });

  it('shows n / total, clamped when the list shrank, and 0 / 0 when empty', () => {
    expect(positionOf(0, 12)).toEqual({ n: 1, total: 12 });
    expect(positionOf(20, 12)).toEqual({ n: 12, total: 12 });
    expect(positionOf(null, 0)).toEqual({ n: 0, total: 0 });
  });

  it('finds an image on the first page with one request', async () => {
    const l = list(1000, 100);
    await expect(locate(995, l.getPage, 100)).resolves.toBe(5);
    expect(l.asked).toEqual([1]);
  });

  it('finds an image deep in 100,000 with a logarithmic number of pages', async () => {
    const l = list(100_000, 100);
    await expect(locate(1, l.getPage, 100)).resolves.toBe(99_999);
    await expect(locate(50_050, l.getPage, 100)).resolves.toBe(49_950);
    expect(l.asked.length).toBeLessThanOrEqual(2 * (1 + Math.ceil(Math.log2(1000))));
  });

  it('answers null for an id that is not in the list', async () => {
    const l = list(1000, 100, new Set([500]));
    await expect(locate(500, l.getPage, 100)).resolves.toBeNull();
    await expect(locate(5000, l.getPage, 100)).resolves.toBeNull();
    await expect(locate(1, list(0, 100).getPage, 100)).resolves.toBeNull();
  });
});
