import { describe, expect, it } from 'vitest';
import type { AgentTrial } from '@loupe/contracts';
import { bestSoFar, trialChartOption } from '../trialChart';

const trial = (number: number, state: AgentTrial['state'], score: number | null): AgentTrial => ({ number, params: { lr0: 0.01 }, state, score, epochs: 3, durationS: 10 });

const TRIALS = [trial(0, 'complete', 0.4), trial(1, 'pruned', 0.2), trial(2, 'complete', 0.3), trial(3, 'complete', 0.55), trial(4, 'failed', null), trial(5, 'running', null)];
const NAMES = { trial: 'Trial', score: 'Score', complete: 'Complete', pruned: 'Pruned', best: 'Best' };

describe('trial chart', () => {
  it('draws the best score so far over the complete trials only, by trial number', () => {
    // A pruned trial's partial score (even a higher one) never raises the line.
    expect(bestSoFar([trial(1, 'pruned', 0.9), ...TRIALS.filter((t) => t.number !== 1)])).toEqual([
      [0, 0.4],
      [2, 0.4],
      [3, 0.55],
    ]);
    expect(bestSoFar([trial(3, 'complete', 0.2), trial(1, 'complete', 0.5)])).toEqual([
      [1, 0.5],
      [3, 0.5],
    ]);
    expect(bestSoFar([])).toEqual([]);
  });

  it('marks complete and pruned trials apart and leaves out those without a score', () => {
    const option = trialChartOption(TRIALS, NAMES);
    const series = option.series as { name: string; data: [number, number][]; step?: string }[];
    expect(series.map((s) => s.name)).toEqual(['Complete', 'Pruned', 'Best']);
    expect(series[0]!.data).toEqual([
      [0, 0.4],
      [2, 0.3],
      [3, 0.55],
    ]);
    expect(series[1]!.data).toEqual([[1, 0.2]]);
    expect(series[2]!.data).toEqual(bestSoFar(TRIALS));
    expect(series[2]!.step).toBe('end');
  });
});
