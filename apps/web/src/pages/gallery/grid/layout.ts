/** Card grid geometry: how many cards fit a row and which items a range of rows holds. */
export const CARD_MIN_WIDTH = 180;
export const CARD_GAP = 12;
export const ROW_HEIGHT = 232;

export function columnsFor(width: number): number {
  return Math.max(1, Math.floor((width + CARD_GAP) / (CARD_MIN_WIDTH + CARD_GAP)));
}

export function rowCount(total: number, columns: number): number {
  return Math.ceil(total / columns);
}

/** First and last item index (inclusive) of rows `firstRow`..`lastRow`, clipped to the total. */
export function itemRange(firstRow: number, lastRow: number, columns: number, total: number): [number, number] {
  return [firstRow * columns, Math.min(total, (lastRow + 1) * columns) - 1];
}
