import { TestSettings, TestSettingsDefaults, TtaTasks, type TestRunData, type TestSettings as Settings, type TestSource, type TestStartBody, type TrainingData } from '@loupe/contracts';

/** The form's values: the SPEC §3 test settings plus what to test with and on. */
export interface TestFormValues extends Settings {
  trainingId?: number;
  source: TestSource;
}

/** Slider and input ranges come from the contract's schema, so the form and the server agree. */
export function rangeOf(key: 'conf' | 'iou'): { min: number; max: number } {
  const schema = TestSettings.properties[key] as { minimum?: number; maximum?: number };
  return { min: schema.minimum ?? 0, max: schema.maximum ?? 1 };
}

/** Start from the latest run's settings (the user tunes step by step), else the contract's defaults. */
export function initialValues(latest: TestRunData | undefined, versions: readonly TrainingData[], chosen: number): TestFormValues {
  const settings = latest?.settings ?? TestSettingsDefaults;
  const trainingId = versions.some((v) => v.id === latest?.trainingId) ? latest!.trainingId : versions[0]?.id;
  return { ...TestSettingsDefaults, ...settings, trainingId, source: chosen > 0 ? 'images' : 'testSplit' };
}

/** Test-time augmentation averages views of axis-aligned boxes or of classes: rotated boxes, masks and text have none. */
export function ttaApplies(values: Pick<TestFormValues, 'trainingId'>, versions: readonly TrainingData[]): boolean {
  const task = versions.find((v) => v.id === values.trainingId)?.task;
  return task !== undefined && TtaTasks.includes(task);
}

/** The start body; chosen images go only with source 'images', test-time augmentation only to a version that has it. */
export function startBody(values: TestFormValues, chosen: readonly number[], versions: readonly TrainingData[]): TestStartBody {
  const { trainingId, source, conf, iou, half, agnostic, tta } = values;
  return {
    ...(trainingId ? { trainingId } : {}),
    source,
    ...(source === 'images' ? { imageIds: [...chosen] } : {}),
    settings: { conf, iou, half, agnostic, tta: ttaApplies(values, versions) ? tta : 'off' },
  };
}
