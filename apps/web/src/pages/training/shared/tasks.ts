import { TrainableTypes, TrainingTasks, type ModelType, type TrainingEpochData, type TrainingTask } from '@loupe/contracts';

/**
 * What each training task measures, for every page that shows a training's or a test's figures (/train curves,
 * the accuracy column and trend, /model, /test). The keys are the engine's (engine/README.md per task;
 * contracts training.ts `Metrics`). 'ocr' is the coming text task: text detection (mAP) plus recognition.
 */
export type Task = TrainingTask | 'ocr';

const KNOWN: readonly string[] = [...TrainingTasks, 'ocr'];

/** The task a training reports, or the one a model type trains when no training says (a test, an old record). */
export function taskOf(task: string | null | undefined, type?: ModelType | string): Task {
  if (task && KNOWN.includes(task)) return task as Task;
  if (type === 'OCR') return 'ocr';
  const tasks = (TrainableTypes as Partial<Record<string, readonly TrainingTask[]>>)[type ?? ''];
  return tasks?.[0] ?? 'detect';
}

export const isDetection = (task: Task) => task === 'detect' || task === 'obb' || task === 'ocr';

/** Whether a model type chooses between rotated and upright boxes (it can train `obb`): the start panel's choice. */
export function choosesRotation(type: ModelType | string | undefined): boolean {
  const tasks = (TrainableTypes as Partial<Record<string, readonly string[]>>)[type ?? ''];
  return tasks?.includes('obb') ?? false;
}

/**
 * The summary key of TrainingData.accuracy per task (the server's ACCURACY_KEY): detection mAP50, classification
 * top-1, segmentation mIoU; OCR its character accuracy.
 */
export const HEADLINE: Record<Task, string> = { detect: 'mAP50', obb: 'mAP50', classify: 'top1', segment: 'mIoU', ocr: 'char_acc' };

/** Epoch metrics drawn as the accuracy curves (0 to 1), in legend order. */
export const METRIC_CURVES: Record<Task, readonly string[]> = {
  detect: ['mAP50', 'mAP50_95', 'precision', 'recall'],
  obb: ['mAP50', 'mAP50_95', 'precision', 'recall'],
  // Single-label top-1 (top-5 with more than 5 classes); multi-label mAP instead.
  classify: ['top1', 'top5', 'mAP', 'precision', 'recall'],
  segment: ['mIoU', 'dice', 'pixel_accuracy'],
  ocr: ['char_acc', 'line_acc', 'ned', 'mAP50'],
};

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * The loss curves: the total, then every part the engine reports (detection's box/cls/dfl, classification's
 * cls, segmentation's ce/dice, OCR's own) in the order first seen, then the validation loss. Read from the
 * history rather than listed per task, so a task that adds a part draws it without a change here.
 */
export function lossKeys(history: readonly TrainingEpochData[]): string[] {
  const parts: string[] = [];
  for (const h of history) {
    for (const [key, value] of Object.entries(h.metrics)) if (/^loss_\w+$/.test(key) && num(value) && !parts.includes(key)) parts.push(key);
  }
  return ['loss', ...parts, 'val_loss'];
}

/**
 * One SPEC §3 model info field beyond the common ones: the test id suffix, the summary key, and how it reads
 * (a share in %, or a plain number such as the normalised edit distance, where lower is better).
 */
export interface TaskField {
  id: string;
  key: string;
  format: 'percent' | 'fixed3';
}

const f = (id: string, key: string, format: TaskField['format'] = 'percent'): TaskField => ({ id, key, format });
const DETECTION_FIELDS = [f('mAP50', 'mAP50'), f('mAP50_95', 'mAP50_95')];

/** The task's own figures of the model info, after precision, recall and F1. */
export const TASK_FIELDS: Record<Task, readonly TaskField[]> = {
  detect: DETECTION_FIELDS,
  obb: DETECTION_FIELDS,
  classify: [f('top1', 'top1'), f('top5', 'top5'), f('mAP', 'mAP')],
  segment: [f('mIoU', 'mIoU'), f('dice', 'dice'), f('pixelAccuracy', 'pixel_accuracy')],
  ocr: [f('charAcc', 'char_acc'), f('lineAcc', 'line_acc'), f('ned', 'ned', 'fixed3'), ...DETECTION_FIELDS],
};

/**
 * Fields a task reports only sometimes, left out when the summary lacks them: top-5 needs more than 5 classes;
 * a multi-label classifier reports mAP instead of top-1.
 */
export const OPTIONAL_FIELDS: readonly string[] = ['top1', 'top5', 'mAP'];
