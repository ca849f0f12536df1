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

  it('defaults to model auto and leaves out the parameter that does nothing (pose)', () => {
    expect(defaultValues().model).toBe('auto');
    expect(PARAM_KEYS).not.toContain('pose');
    expect('pose' in defaultValues()).toBe(false);
    // still accepted: saved parameters and older trainings carry it; the form drops it on the next save
    expect(checkTrainingParams({ pose: TrainingParams.pose.default })).toEqual([]);
    expect(toSaved(formValuesOf({ pose: 20, epochs: 7 }))).toEqual({ epochs: 7 });
    expect(PARAM_KEYS.length).toBe(Object.keys(TrainingParams).length - 1);
  });

  it('shows the agent early stop as a trial count and class-balanced sampling (issue 35)', () => {
    expect(PARAM_KEYS).toEqual(expect.arrayContaining(['agent_early_stop', 'balance']));
    expect(defaultValues().agent_early_stop).toBe(5);
    expect(defaultValues().balance).toBe(false);
    // A switch saved before issue 35 reads as the count it meant: on = 5 trials, off = 0.
    expect(formValuesOf({ agent_early_stop: true }).agent_early_stop).toBe(5);
    expect(toSaved(formValuesOf({ agent_early_stop: false }))).toEqual({ agent_early_stop: 0 });
    expect(problemOf('agent_early_stop', 101)).not.toBeNull();
    expect(toSaved(formValuesOf({ balance: true, agent_early_stop: 3 }))).toEqual({ agent_early_stop: 3, balance: true });
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
