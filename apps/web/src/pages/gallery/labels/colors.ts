/** Distinct default colours for new labels, taken in turn so neighbouring labels never look alike. */
export const LABEL_PALETTE = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#46f0f0', '#f032e6', '#bcf60c', '#008080', '#9a6324'] as const;

export function nextColor(count: number): string {
  return LABEL_PALETTE[((count % LABEL_PALETTE.length) + LABEL_PALETTE.length) % LABEL_PALETTE.length]!;
}
