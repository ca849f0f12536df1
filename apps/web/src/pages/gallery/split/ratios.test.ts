import { describe, expect, it } from 'vitest';
import { DEFAULT_PERCENTS, ratioProblem, toRatios } from './ratios';

describe('auto-split ratios', () => {
  it('accepts the default and a zero test share', () => {
    expect(ratioProblem(DEFAULT_PERCENTS)).toBeNull();
    expect(ratioProblem({ train: 80, valid: 20, test: 0 })).toBeNull();
    expect(ratioProblem({ train: 33.3, valid: 33.3, test: 33.4 })).toBeNull();
  });

  it('refuses shares that do not add up to 100', () => {
    expect(ratioProblem({ train: 70, valid: 20, test: 5 })).toBe('sum');
    expect(ratioProblem({ train: 70, valid: 30, test: 1 })).toBe('sum');
  });

  it('refuses a share out of range or not a number', () => {
    expect(ratioProblem({ train: 120, valid: -20, test: 0 })).toBe('range');
    expect(ratioProblem({ train: Number.NaN, valid: 50, test: 50 })).toBe('range');
  });

  it('needs a train and a validation share', () => {
    expect(ratioProblem({ train: 0, valid: 90, test: 10 })).toBe('trainZero');
    expect(ratioProblem({ train: 90, valid: 0, test: 10 })).toBe('validZero');
  });

  it('sends fractions', () => {
    expect(toRatios({ train: 70, valid: 20, test: 10 })).toEqual({ train: 0.7, valid: 0.2, test: 0.1 });
  });
});
