import { describe, expect, it } from 'vitest';
import { classVerdict, topScores } from '../results/classResult';

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
});
