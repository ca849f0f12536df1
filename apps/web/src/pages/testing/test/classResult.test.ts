import { describe, expect, it } from 'vitest';
import type { ClassResult } from '@loupe/contracts';
import { classSetsOf, classVerdict, topScores } from '../results/classResult';

const labels = new Map([
  [1, { name: 'disc', color: '#ff0000' }],
  [2, { name: 'square', color: '#00ff00' }],
  [3, { name: 'ring', color: '#0000ff' }],
]);

describe('classification results', () => {
  it('calls an image right, wrong, or unknown without a true class', () => {
    expect(classVerdict({ correct: true })).toBe('right');
    expect(classVerdict({ correct: false })).toBe('wrong');
    expect(classVerdict({ correct: null })).toBe('unknown');
    expect(classVerdict(null)).toBe('unknown');
  });

  it('lists the most probable classes first, as many as asked, a deleted label by its id', () => {
    const scores = { '1': 0.2, '2': 0.5, '3': 0.2, '7': 0.1 };
    expect(topScores({ scores }, labels, 3).map((s) => [s.labelId, s.name, s.score])).toEqual([
      [2, 'square', 0.5],
      [1, 'disc', 0.2],
      [3, 'ring', 0.2],
    ]);
    expect(topScores({ scores }, labels).at(-1)).toEqual({ labelId: 7, score: 0.1, name: '#7', color: '#8c8c8c' });
    expect(topScores({ scores: {} }, labels)).toEqual([]);
  });

  it('reads a multi-label run’s predicted and true sets, and nothing of a single-label one', () => {
    const single: ClassResult = { labelId: 1, confidence: 0.9, scores: { '1': 0.9, '2': 0.1 }, truthLabelId: 1, correct: true };
    expect(classSetsOf(single)).toBeNull();
    const multi = { ...single, truthLabelId: null, correct: false, multiLabel: true, labelIds: [1, 3], truthLabelIds: [1] };
    expect(classSetsOf(multi)).toEqual({ predicted: [1, 3], truth: [1] });
    expect(classSetsOf({ ...multi, labelIds: undefined, truthLabelIds: undefined })).toEqual({ predicted: [], truth: null });
  });
});
