import { describe, expect, it } from 'vitest';
import { checkTrainingParams, TrainingParams, type ParamDef, type TrainingParamKey } from '@loupe/contracts';
import {
  changedKeys,
  defaultValues,
  formValuesOf,
  keysOf,
  PARAM_KEYS,
  problemOf,
  problemsOf,
  stepOf,
  toSaved,
} from '../parameter/paramForm';
import { reasonText } from '../parameter/reasons';

describe('parameter form rules', () => {
  it('starts from the contract defaults, every parameter in exactly one group', () => {
    const values = defaultValues();
    expect(values.imgsz).toBe(640);
    expect(values.batch).toBe(-1);
    expect(values.mosaic).toBe(1);
    expect(values.optimizer).toBe('auto');
    const grouped = (['basic', 'augmentation', 'learning', 'loss'] as const).flatMap(keysOf);
    expect(grouped.sort()).toEqual([...PARAM_KEYS].sort());
    expect(problemsOf(values)).toEqual({});
  });

  it('defaults to model auto and leaves out the parameters that do nothing (pose, agent_early_stop)', () => {
    expect(defaultValues().model).toBe('auto');
    for (const key of ['pose', 'agent_early_stop'] as const) {
      expect(PARAM_KEYS).not.toContain(key);
      expect(key in defaultValues()).toBe(false);
      // still accepted: saved parameters and older trainings carry them; the form drops them on the next save
      expect(checkTrainingParams({ [key]: TrainingParams[key].default })).toEqual([]);
      expect(toSaved(formValuesOf({ [key]: key === 'pose' ? 20 : true, epochs: 7 }))).toEqual({ epochs: 7 });
    }
    expect(PARAM_KEYS.length).toBe(Object.keys(TrainingParams).length - 2);
  });

  it('lays saved values over the defaults and drops keys the engine no longer knows', () => {
    const values = formValuesOf({ imgsz: 1280, fliplr: 0, gone: 3 });
    expect(values.imgsz).toBe(1280);
    expect(values.fliplr).toBe(0);
    expect(values.epochs).toBe(100);
    expect('gone' in values).toBe(false);
    expect(changedKeys(values)).toEqual(['imgsz', 'fliplr']);
  });

  it.each<[TrainingParamKey, unknown, string | null]>([
    ['imgsz', 640, null],
    ['imgsz', 650, 'multipleOf32'],
    ['imgsz', 4128, 'range'],
    ['imgsz', 0, 'range'],
    ['crop', 0, null],
    ['crop', 31, 'multipleOf32or0'],
    ['crop', 320, null],
    ['time', 0, null],
    ['time', 0.5, 'trainingHours'],
    ['time', 1, null],
    ['time', 72, null],
    ['time', 72.5, 'range'],
    ['batch', -1, null],
    ['batch', 0, 'batchSize'],
    ['batch', 2, null],
    ['batch', -2, 'range'],
    ['epochs', 1.5, 'type'],
    ['mosaic', 1.1, 'range'],
    ['hsv_h', 0, null],
    ['perspective', 0.002, 'range'],
    ['fraction', 0, 'range'],
    ['optimizer', 'Lion', 'enum'],
    ['amp', false, null],
    ['pretrained', '', null],
    ['pretrained', '12', null],
    ['pretrained', '/srv/loupe/blobs/ab/abcd', 'trainingId'],
    ['pretrained', '../x.pt', 'trainingId'],
    ['pretrained', '012', 'trainingId'],
    ['epochs', null, 'required'],
    ['lr0', '', 'required'],
  ])('%s = %s → %s', (key, value, problem) => {
    expect(problemOf(key, value as never)).toBe(problem);
  });

  it('agrees with the server check (checkTrainingParams) on every field', () => {
    const samples: Record<string, unknown[]> = {};
    for (const key of PARAM_KEYS) {
      const def: ParamDef = TrainingParams[key];
      const [min, max] = [def.min ?? 0, def.max ?? 0];
      samples[key] =
        def.type === 'bool' ? [true, false] : def.type === 'enum' ? [...(def.choices ?? []), 'nope'] : def.type === 'str' ? ['', 'x.pt'] : [min - 1, min, max, max + 1, (min + max) / 2, 33];
    }
    for (const [key, values] of Object.entries(samples)) {
      for (const value of values) {
        const server = checkTrainingParams({ [key]: value })[0]?.reason ?? null;
        expect([key, value, problemOf(key as TrainingParamKey, value as never)]).toEqual([key, value, server]);
      }
    }
  });

  it('saves only the values that differ from the defaults', () => {
    const values = { ...defaultValues(), imgsz: 960, mosaic: 1, fliplr: 0, amp: false };
    expect(toSaved(values)).toEqual({ imgsz: 960, fliplr: 0, amp: false });
    expect(toSaved(defaultValues())).toEqual({});
  });

  it('steps number fields sensibly', () => {
    expect(stepOf('imgsz')).toBe(32);
    expect(stepOf('epochs')).toBe(1);
    expect(stepOf('mosaic')).toBe(0.01);
    expect(stepOf('perspective')).toBe(0.0001);
    expect(stepOf('box')).toBe(0.1);
    expect(stepOf('seed')).toBe(1);
  });

  it('words problems as the server does, in each language', () => {
    expect(reasonText('en', 'multipleOf32')).toBe('must be a multiple of 32');
    expect(reasonText('de', 'trainingHours')).toContain('72');
    expect(reasonText('zh', 'range')).toBe('超出范围');
  });
});
