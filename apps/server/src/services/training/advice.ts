import type { TrainingAdvice, TrainingTask, TrainingVerdict, VerdictLevel } from '@loupe/contracts';
import { TrainingParams } from '@loupe/contracts';
import type { CocoManifest } from './snapshot.js';

/**
 * Whether a training can learn (before it starts) and whether it did (after), issue 31. The rules are pure:
 * the estimate (estimate.ts) and every view of a training (trainings.ts trainingView) use them, so the SDK,
 * /train and /model agree.
 *
 * The figures, engine/BENCHMARKS-FEW.md (detector from scratch on DeepPCB, 2-core CPU):
 * - 800 optimizer steps at batch 8 on 60 images scored mAP50 0.69-0.72, 400 steps at batch 15 0.55-0.57;
 *   48 images x 3 or 15 epochs (18 or 90 steps at batch 8) scored 0.0 and 24 epochs (144 steps) 0.008
 *   (issue 31). So fewer than MIN_STEPS steps from scratch is too little; 400 is the least that was measured
 *   to learn. From pretrained weights (unmeasured) a quarter is asked.
 * - The detector's finest grid has a stride of 8 px (models/detector.py): a box whose shorter side is below
 *   one cell at the training size is where the detector stops finding things. MIN_BOX_PX applies to the
 *   smallest quarter of the boxes.
 */
export const MIN_STEPS = 400;
export const MIN_STEPS_PRETRAINED = 100;
export const MIN_BOX_PX = 8;
/** Training instances per class (images for a classifier) below which more labels are advised: a rule of thumb, unmeasured here. */
export const MIN_INSTANCES = 30;
/** The engine's batch rule below this many training images (trainer/base.py FEW_IMAGES). */
const FEW_IMAGES = 300;

/** The frozen data as the rules see it; stored per training (training_advice.data_stats). */
export interface DataStats {
  trainImages: number;
  validImages: number;
  /** Training instances per label name: boxes/shapes, or images for a classifier. */
  perClass: Record<string, number>;
  /**
   * Shorter side of the labeled shapes' bounding boxes over their image's longer side, at the 10th, 25th and
   * 50th percentile (a training at imgsz S letterboxes the longer side to S); null without shapes.
   */
  boxRel: { p10: number; p25: number; p50: number } | null;
}

function quantile(sorted: readonly number[], q: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.floor(q * (sorted.length - 1))));
  return sorted[i]!;
}

/** DataStats of a frozen manifest (snapshot.ts): images by split, per-class training instances, box sizes. */
export function dataStatsOf(manifest: CocoManifest): DataStats {
  const names = new Map(manifest.categories.map((c) => [c.id, c.name]));
  const perClass: Record<string, number> = Object.fromEntries(manifest.categories.map((c) => [c.name, 0]));
  const images = new Map(manifest.images.map((i) => [i.id, i]));
  let trainImages = 0;
  let validImages = 0;
  for (const img of manifest.images) {
    if (img.split === 'train') trainImages += 1;
    else if (img.split === 'val') validImages += 1;
    if (img.split !== 'train') continue;
    const classes = img.category_ids ?? (img.category_id !== undefined ? [img.category_id] : []);
    for (const c of classes) perClass[names.get(c) ?? ''] = (perClass[names.get(c) ?? ''] ?? 0) + 1;
  }
  const rel: number[] = [];
  for (const a of manifest.annotations) {
    const img = images.get(a.image_id);
    if (!img) continue;
    if (img.split === 'train') perClass[names.get(a.category_id) ?? ''] = (perClass[names.get(a.category_id) ?? ''] ?? 0) + 1;
    const side = Math.max(img.width, img.height);
    // A rotated box's own short side, not its axis-aligned bounds.
    const short = a.rbox ? Math.min(a.rbox[2]!, a.rbox[3]!) : Math.min(a.bbox[2]!, a.bbox[3]!);
    if (side > 0 && short > 0) rel.push(short / side);
  }
  rel.sort((x, y) => x - y);
  return {
    trainImages,
    validImages,
    perClass,
    boxRel: rel.length ? { p10: quantile(rel, 0.1), p25: quantile(rel, 0.25), p50: quantile(rel, 0.5) } : null,
  };
}

const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) ? v : d);
const paramNum = (params: Record<string, unknown>, key: 'imgsz' | 'crop' | 'batch' | 'epochs' | 'fraction' | 'time' | 'patience') =>
  num(params[key], TrainingParams[key].default as number);

/** The engine's batch=-1 rule (trainer/base.py auto_batch) at `size`, the training size. */
export function autoBatch(nTrain: number, size: number): number {
  let batch = size <= 640 ? 16 : size <= 1280 ? 8 : 2;
  if (nTrain < FEW_IMAGES) batch = Math.min(batch, 8);
  return Math.max(2, Math.min(batch, Math.floor(nTrain / 4) || 2));
}

export interface Plan {
  trainImages: number;
  batch: number;
  stepsPerEpoch: number;
  epochs: number;
  steps: number;
  imgsz: number;
  /** The side a training image is seen at: the crop when it is smaller than imgsz, else imgsz. */
  trainSize: number;
  pretrained: boolean;
}

/** What the engine will do with these parameters on this data (classification and segmentation share the batch rule). */
export function planOf(params: Record<string, unknown>, stats: DataStats): Plan {
  const imgsz = paramNum(params, 'imgsz');
  const crop = paramNum(params, 'crop');
  const trainSize = crop > 0 && crop < imgsz ? crop : imgsz;
  const trainImages = Math.max(1, Math.round(stats.trainImages * paramNum(params, 'fraction')));
  const asked = paramNum(params, 'batch');
  const batch = asked > 0 ? Math.min(asked, trainImages) : autoBatch(trainImages, trainSize);
  const stepsPerEpoch = Math.max(1, Math.ceil(trainImages / batch));
  const epochs = paramNum(params, 'epochs');
  const pretrained = typeof params.pretrained === 'string' && params.pretrained !== '';
  return { trainImages, batch, stepsPerEpoch, epochs, steps: stepsPerEpoch * epochs, imgsz, trainSize, pretrained };
}

const BOX_TASKS: readonly TrainingTask[] = ['detect', 'obb', 'segment', 'ocr'];

/**
 * The advice for a plan (before) or for what was run (`epochsRun`, after): too few steps, boxes too small at
 * this size, too few labels of a class. Each says the value that would be enough.
 */
export function planAdvice(task: TrainingTask, plan: Plan, stats: DataStats, epochsRun = plan.epochs): TrainingAdvice[] {
  const advice: TrainingAdvice[] = [];
  const minSteps = plan.pretrained ? MIN_STEPS_PRETRAINED : MIN_STEPS;
  const steps = plan.stepsPerEpoch * epochsRun;
  if (steps < minSteps) advice.push({ kind: 'epochs', steps, minSteps, epochs: Math.ceil(minSteps / plan.stepsPerEpoch) });
  if (BOX_TASKS.includes(task) && stats.boxRel) {
    // Tiles of `crop` px are cut at full resolution: a box keeps its pixels, so the image size does not shrink it.
    const cropped = plan.trainSize < plan.imgsz;
    const boxPx = stats.boxRel.p25 * plan.imgsz;
    if (!cropped && boxPx < MIN_BOX_PX) {
      const target = Math.min(TrainingParams.imgsz.max as number, Math.ceil(MIN_BOX_PX / stats.boxRel.p25 / 32) * 32);
      advice.push({ kind: 'imgsz', imgsz: plan.imgsz, boxPx: Math.round(boxPx * 10) / 10, target });
    }
  }
  const short = Object.entries(stats.perClass)
    .filter(([, n]) => n < MIN_INSTANCES)
    .sort((a, b) => a[1] - b[1]);
  for (const [label, count] of short.slice(0, 3)) advice.push({ kind: 'labels', label, count, target: MIN_INSTANCES });
  return advice;
}

/** The headline metric per task and its thresholds: unusable below the first, weak below the second. */
const THRESHOLDS: Record<TrainingTask, { metric: string; unusable: number; weak: number }> = {
  detect: { metric: 'mAP50', unusable: 0.05, weak: 0.3 },
  obb: { metric: 'mAP50', unusable: 0.05, weak: 0.3 },
  segment: { metric: 'mIoU', unusable: 0.05, weak: 0.3 },
  ocr: { metric: 'char_acc', unusable: 0.05, weak: 0.5 },
  // Replaced by chance-relative thresholds (verdictOf).
  classify: { metric: 'top1', unusable: 0, weak: 0 },
};

export interface VerdictInput {
  task: TrainingTask;
  status: string;
  summary: Record<string, unknown> | null;
  params: Record<string, unknown>;
  labelKinds: number;
  stats: DataStats | null;
}

/**
 * Whether a succeeded training is usable. detect/obb: mAP50 below 0.05 means no prediction is right at IoU 0.5
 * however low the score (the 0.0 and 0.008), below 0.3 far below what 30-300 images reach (0.57-0.86,
 * BENCHMARKS-FEW.md); segment mIoU likewise; OCR character accuracy (and its text detector's mAP50) below 0.05 /
 * 0.5; a single-label classifier hardly above guessing (1/classes + 5 % of the rest) is unusable, below 30 % of
 * the way from guessing to perfect weak. Multi-label classifiers are judged by F1. Null unless succeeded.
 */
export function verdictOf(input: VerdictInput): TrainingVerdict | null {
  const { task, summary } = input;
  if (input.status !== 'succeeded' || !summary) return null;
  let { metric, unusable, weak } = THRESHOLDS[task];
  if (task === 'classify') {
    if (summary.multi_label === true) {
      metric = 'f1';
      unusable = 0.05;
      weak = 0.3;
    } else {
      const chance = 1 / Math.max(2, input.labelKinds);
      unusable = chance + 0.05 * (1 - chance);
      weak = chance + 0.3 * (1 - chance);
    }
  }
  const raw = summary[metric];
  const value = typeof raw === 'number' && Number.isFinite(raw) ? raw : null;
  let level: VerdictLevel = value === null ? 'unusable' : value < unusable ? 'unusable' : value < weak ? 'weak' : 'usable';
  // OCR: a text detector that finds no line reads nothing, whatever the recognizer learned on its own crops.
  const det = summary.mAP50;
  if (task === 'ocr' && typeof det === 'number' && det < 0.05) level = 'unusable';
  const r4 = (v: number) => Math.round(v * 10000) / 10000;
  const verdict: TrainingVerdict = { level, metric, value, unusableBelow: r4(unusable), weakBelow: r4(weak), advice: [] };
  if (level === 'usable') return verdict;
  verdict.advice = resultAdvice(input, summary);
  return verdict;
}

/** Advice for a weak or unusable result: what the run did against what would be enough. */
function resultAdvice(input: VerdictInput, summary: Record<string, unknown>): TrainingAdvice[] {
  const stats: DataStats = input.stats ?? { trainImages: 0, validImages: 0, perClass: {}, boxRel: null };
  const advice: TrainingAdvice[] = [];
  // The epochs that ran (the engine's total_epochs): a time limit or patience may have ended it before the plan.
  const ran = Math.max(1, num(summary.total_epochs, paramNum(input.params, 'epochs')));
  const stoppedBy = typeof summary.stopped_by === 'string' ? summary.stopped_by : '';
  if (input.stats) {
    const plan = planOf(input.params, stats);
    const base = planAdvice(input.task, plan, stats, ran);
    // An unusable result after enough steps still needs more of them: double what ran.
    if (!base.some((a) => a.kind === 'epochs')) {
      const steps = plan.stepsPerEpoch * ran;
      base.unshift({ kind: 'epochs', steps, minSteps: steps * 2, epochs: ran * 2 });
    }
    advice.push(...base);
  } else {
    advice.push({ kind: 'epochs', epochs: ran * 2 });
  }
  if (stoppedBy === 'time') advice.push({ kind: 'time', epoch: ran, epochs: paramNum(input.params, 'epochs') });
  else if (stoppedBy === 'patience') advice.push({ kind: 'patience', epoch: ran, epochs: paramNum(input.params, 'epochs') });
  if (!advice.some((a) => a.kind === 'labels')) {
    // No class is short of the rule of thumb: more labels still help most where the fewest are.
    const fewest = Object.entries(stats.perClass).sort((a, b) => a[1] - b[1])[0];
    if (fewest) advice.push({ kind: 'labels', label: fewest[0], count: fewest[1], target: fewest[1] * 2 });
  }
  return advice;
}
