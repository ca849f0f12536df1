import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTrainingParams, TrainingParams, type ParamDef } from '@loupe/contracts';
import { loadConfig } from '../src/config.js';

/** The engine's own table (config.describe()): key, default, range or choices. */
function engineTable(): [string, unknown, string][] {
  const engine = loadConfig({}).engine;
  const script = 'import json; from loupe_engine.config import describe; print(json.dumps([[k, d, r] for k, d, r, _ in describe()]))';
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', script], { env: { ...process.env, PYTHONPATH: path.resolve(engine.pythonPath) } }).toString()) as [string, unknown, string][];
}

describe('training parameters (SPEC §3, §5)', () => {
  it('match the engine: same keys, defaults and ranges, so the server rejects what the engine would', () => {
    const defs: Record<string, ParamDef> = TrainingParams;
    const rows = engineTable();
    expect(Object.keys(defs)).toEqual(rows.map((r) => r[0]));
    for (const [key, def, range] of rows) {
      const mine = defs[key]!;
      expect(mine.default, key).toEqual(def);
      const expected = mine.choices ? mine.choices.join('|') : mine.min !== undefined ? `${mine.min}..${mine.max}` : '';
      // Python prints floats with a point (0.0..1.0); compare the numbers.
      const norm = (s: string) => s.replace(/(\d+(?:\.\d+)?(?:e-?\d+)?)/g, (n) => String(Number(n)));
      expect(norm(expected), key).toBe(norm(range));
    }
  });

  it('checks each SPEC §5 rule, one problem per key', () => {
    expect(checkTrainingParams({ imgsz: 640, batch: -1, time: 0, epochs: 2, scheduler: 'cosine', amp: false })).toEqual([]);
    expect(checkTrainingParams({ imgsz: 630, crop: 33, time: 0.5, batch: 0, epochs: 1.5, fliplr: -0.1, amp: 'yes' })).toEqual([
      { field: 'imgsz', reason: 'multipleOf32' },
      { field: 'crop', reason: 'multipleOf32or0' },
      { field: 'time', reason: 'trainingHours' },
      { field: 'batch', reason: 'batchSize' },
      { field: 'epochs', reason: 'type' },
      { field: 'fliplr', reason: 'range' },
      { field: 'amp', reason: 'type' },
    ]);
  });
});
