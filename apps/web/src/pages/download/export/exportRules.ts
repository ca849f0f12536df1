import type { ExportStartBody, PackKind, PackStatusData, SdkType, TrainingData } from '@loupe/contracts';

/**
 * The export form's rules (SPEC §5: width, height and max detections each > 0; an SDK type must be chosen)
 * plus the contract's (the rotated-box type must match what the version learned). Pure: the form's
 * validators and the unit tests call the same functions, and the messages are keys of `download:rules`.
 */
export interface ExportFormValues {
  trainingId?: number;
  inputW?: number | null;
  inputH?: number | null;
  maxDet?: number | null;
  sdkType?: SdkType;
  rotated?: boolean;
}

export type ExportField = keyof ExportFormValues;
export type ExportReason = 'required' | 'positiveInt' | 'sdkRequired' | 'rotatedMismatch';
export interface ExportProblem {
  field: ExportField;
  reason: ExportReason;
}

/** Ultralytics' default max_det, the engine's too: a starting value, not a limit. */
export const DEFAULT_MAX_DET = 300;
/** When the version's parameters carry no image size. */
export const DEFAULT_INPUT = 640;

/** SPEC §9: the GPUs each SDK covers; names of products, the same in every language. */
export const SDK_GPU_RANGES: Partial<Record<SdkType, string>> = {
  gpu1020: 'GTX 1050 – RTX 2080 Ti',
  gpu30: 'RTX 3060 – RTX 3090',
};

export function positiveIntProblem(value: unknown): 'required' | 'positiveInt' | null {
  if (value === undefined || value === null || value === '') return 'required';
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? null : 'positiveInt';
}

export function sdkTypeProblem(value: unknown): 'sdkRequired' | null {
  return value === 'cpu' || value === 'gpu1020' || value === 'gpu30' ? null : 'sdkRequired';
}

/** A version trained on rotated boxes exports only as rotated, and the other way round. */
export function rotatedProblem(rotated: boolean | undefined, training: TrainingData | undefined): 'rotatedMismatch' | null {
  if (!training || rotated === undefined) return null;
  return rotated === training.rotated ? null : 'rotatedMismatch';
}

/**
 * The SDK type is asked on the SDK page only: a model pack is a plain ONNX file whatever runs it (the server
 * stores no SDK type for it), so making the user choose one there would ask for a choice that changes nothing.
 */
export const asksSdkType = (kind: PackKind) => kind === 'sdk';

export function checkExport(values: ExportFormValues, training: TrainingData | undefined, kind: PackKind): ExportProblem[] {
  const problems: ExportProblem[] = [];
  for (const field of ['inputW', 'inputH', 'maxDet'] as const) {
    const reason = positiveIntProblem(values[field]);
    if (reason) problems.push({ field, reason });
  }
  const sdk = asksSdkType(kind) ? sdkTypeProblem(values.sdkType) : null;
  if (sdk) problems.push({ field: 'sdkType', reason: sdk });
  const rotated = rotatedProblem(values.rotated, training);
  if (rotated) problems.push({ field: 'rotated', reason: rotated });
  return problems;
}

/**
 * The server's exportFailed names the refused input in data.field (with a reason); it reads as the form's own
 * rule for that field. Null when the field is not one of the form's.
 */
export function serverProblem(data: unknown): ExportProblem | null {
  const field = (data as { field?: unknown } | null)?.field;
  if (field === 'inputW' || field === 'inputH' || field === 'maxDet') return { field, reason: 'positiveInt' };
  if (field === 'sdkType') return { field, reason: 'sdkRequired' };
  if (field === 'rotated') return { field, reason: 'rotatedMismatch' };
  return null;
}

/** SPEC §9: rotated boxes need an NVIDIA 20 series or newer; a warning, the server has the last word. */
export function rotatedHint(sdkType: SdkType | undefined, rotated: boolean | undefined): 'needsNvidia20' | null {
  return rotated && (sdkType === 'cpu' || sdkType === 'gpu1020') ? 'needsNvidia20' : null;
}

export function exportBody(values: ExportFormValues, modelId: number, kind: PackKind, training: TrainingData | undefined): ExportStartBody {
  return {
    modelId,
    ...(values.trainingId ? { trainingId: values.trainingId } : {}),
    kind,
    inputW: values.inputW!,
    inputH: values.inputH!,
    maxDet: values.maxDet!,
    ...(asksSdkType(kind) ? { sdkType: values.sdkType! } : {}),
    rotated: values.rotated ?? training?.rotated ?? false,
  };
}

function imageSizeOf(training: TrainingData | undefined): number {
  const size = training?.params.imgsz;
  return typeof size === 'number' && size > 0 ? size : DEFAULT_INPUT;
}

/**
 * Start from the latest pack of this kind (re-export with the same values), else from the version: its
 * image size as the camera resolution, its rotated-box type. The SDK type is left for the user to choose.
 */
export function initialExportValues(last: PackStatusData | undefined, versions: readonly TrainingData[]): ExportFormValues {
  const fromLast = last && last.packStatus !== 'none' ? last : undefined;
  const training = versions.find((v) => v.id === fromLast?.trainingId) ?? versions[0];
  const size = imageSizeOf(training);
  return {
    trainingId: training?.id,
    inputW: fromLast?.inputW ?? size,
    inputH: fromLast?.inputH ?? size,
    maxDet: fromLast?.maxDet ?? DEFAULT_MAX_DET,
    ...(fromLast?.sdkType ? { sdkType: fromLast.sdkType } : {}),
    rotated: training?.rotated ?? fromLast?.rotated ?? false,
  };
}
