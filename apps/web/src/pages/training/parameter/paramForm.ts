import {
  checkTrainingParams,
  ParamGroups,
  ShownParamKeys,
  TrainingParams,
  type ParamDef,
  type ParamGroup,
  type ParamProblem,
  type TrainingParamKey,
  type TrainingParamValues,
} from '@loupe/contracts';

/**
 * The /parameter form's rules, derived from the contract's TrainingParams (the engine's defaults, ranges and
 * SPEC §5 rules): the same check the server runs on save and on a training start.
 */
export type ParamValue = number | boolean | string;
/** A cleared number field holds null until the user types again. */
export type FormValues = Record<TrainingParamKey, ParamValue | null>;
export type FieldProblem = ParamProblem['reason'] | 'required';

const DEFS: Record<TrainingParamKey, ParamDef> = TrainingParams;
/** The form's keys: the contract's shown ones (pose does nothing, so it is not shown). */
export const PARAM_KEYS: TrainingParamKey[] = [...ShownParamKeys];

export const defOf = (key: TrainingParamKey): ParamDef => DEFS[key];
export const isParamKey = (key: string): key is TrainingParamKey => (PARAM_KEYS as string[]).includes(key);

/** The keys of one group, in the contract's order. */
export function keysOf(group: ParamGroup): TrainingParamKey[] {
  return PARAM_KEYS.filter((key) => DEFS[key].group === group);
}
export const GROUPS = ParamGroups;

export function defaultValues(): FormValues {
  return Object.fromEntries(PARAM_KEYS.map((key) => [key, DEFS[key].default])) as FormValues;
}

/** Before issue 35 agent_early_stop was a switch; a stored one reads as the trial count it meant (5 or off). */
function upgraded(key: TrainingParamKey, value: ParamValue): ParamValue {
  return key === 'agent_early_stop' && typeof value === 'boolean' ? (value ? 5 : 0) : value;
}

/** The form's starting values: the saved ones over the defaults. Keys the engine no longer knows are dropped. */
export function formValuesOf(saved: Record<string, ParamValue> | undefined): FormValues {
  const values = defaultValues();
  for (const [key, value] of Object.entries(saved ?? {})) if (isParamKey(key)) values[key] = upgraded(key, value);
  return values;
}

export function isDefault(key: TrainingParamKey, value: ParamValue | null | undefined): boolean {
  return value === DEFS[key].default;
}

/** Keys whose value differs from the default, in form order. */
export function changedKeys(values: Partial<FormValues>): TrainingParamKey[] {
  return PARAM_KEYS.filter((key) => key in values && !isDefault(key, values[key]));
}

/**
 * What is saved: only the values that differ from the defaults (contract: `saved` holds the keys the user set),
 * so a default the engine changes later reaches every field the user never touched.
 */
export function toSaved(values: Partial<FormValues>): TrainingParamValues {
  const out: TrainingParamValues = {};
  for (const key of changedKeys(values)) {
    const value = values[key];
    if (value !== null && value !== undefined) out[key] = value;
  }
  return out;
}

/** The one problem of a field's value by the contract's rules; null when it is fine. */
export function problemOf(key: TrainingParamKey, value: ParamValue | null | undefined): FieldProblem | null {
  if (value === null || value === undefined || value === '') {
    return DEFS[key].type === 'str' && value === '' ? null : 'required';
  }
  return checkTrainingParams({ [key]: value })[0]?.reason ?? null;
}

/** Every problem of the form, keyed by field. */
export function problemsOf(values: Partial<FormValues>): Partial<Record<TrainingParamKey, FieldProblem>> {
  const out: Partial<Record<TrainingParamKey, FieldProblem>> = {};
  for (const key of PARAM_KEYS) {
    if (!(key in values)) continue;
    const problem = problemOf(key, values[key]);
    if (problem) out[key] = problem;
  }
  return out;
}

/** Arrow-key step of a number field: whole numbers, multiples of 32, or a step fitting the range. */
export function stepOf(key: TrainingParamKey): number {
  const def = DEFS[key];
  if (def.rule === 'multipleOf32' || def.rule === 'multipleOf32or0') return 32;
  if (def.type === 'int') return 1;
  const span = (def.max ?? 1) - (def.min ?? 0);
  if (span <= 0.01) return 0.0001;
  if (span <= 1) return 0.01;
  if (span <= 100) return 0.1;
  return 1;
}
