import { describe, expect, it } from 'vitest';
import { allActions, type Notice } from '@loupe/annotator';
import { LANGUAGES } from '@loupe/contracts';
import i18n from '@/i18n';

// A Record over the Notice union: a notice added to the annotator fails to compile here until it has a text.
const NOTICES: Record<Notice, true> = {
  selectLabelFirst: true,
  tooSmall: true,
  drawingNotFinished: true,
  firstImage: true,
  lastImage: true,
  nothingToPaste: true,
};

describe('labeling texts', () => {
  it("name every editor action and notice in every language (the annotator's labelKeys live in `mark`)", () => {
    const keys = [...new Set(allActions.map((a) => a.labelKey)), ...Object.keys(NOTICES).map((n) => `notices.${n}`)];
    const missing = LANGUAGES.flatMap((lng) => keys.filter((k) => !i18n.exists(`mark:${k}`, { lng })).map((k) => `${lng}:${k}`));
    expect(missing).toEqual([]);
  });
});
