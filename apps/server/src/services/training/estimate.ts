import { TrainingParams, type Language, type TrainingEstimateData, type TrainingStartBody, type TrainingTask } from '@loupe/contracts';
import type { Model } from '../../db/models.js';
import type { Deps } from '../deps.js';
import { dataStatsOf, planAdvice, planOf } from './advice.js';
import { assertTrainingParams, savedParams } from './parameters.js';
import { freezeDataset } from './snapshot.js';
import { taskOf } from './trainings.js';

/**
 * Conservative training images per second at 640 px on a 2-core CPU without AMX (float32), the fallback when
 * this server has trained nothing comparable yet: p 6.0-7.2 and n 2.7 measured (engine/BENCHMARKS-FEW.md, issue
 * 30's EPYC), s and m scaled from n by their FLOPs (unmeasured). `auto` is p there unless the time limit affords n
 * 15 epochs over the training images (engine config.auto_model, engine/README.md "Defaults by hardware and
 * budget"), so p's figure stands for it; where auto picks n the epochs fit the limit by that rule.
 */
export const TABLE_IMG_PER_S_640: Record<string, number> = { auto: 6, p: 6, n: 2.7, s: 1, m: 0.4 };
/**
 * Seconds a training costs besides its images: the engine's start (torch import), the data check, the final
 * evaluation and the artifacts. Measured on the development machine under load (load average 15-20 on 2 cores):
 * a 1-epoch run of 17 images at 64 px took 15.3 s from queued to end, of which the images were about 1 s.
 */
export const OVERHEAD_S = 15;
/**
 * The cost of one training image at side S is FIXED_PX2 + S² (in px²): a fixed part (decoding, augmentation,
 * the batch's Python) and the network's, which grows with the area. Measured here with the pico detector on 27
 * images, 20 epochs: 20.1 and 18.7 images/s at 128 px, 13.7 and 11.7 at 256 px (a ratio of 1.5, where the area
 * alone says 4); FIXED_PX2 = 80,000 (a 283 px image's area) gives 1.51.
 */
const FIXED_PX2 = 80_000;

/** How much faster an image of side `to` trains than one of side `from`. */
export const sizeScale = (from: number, to: number) => (FIXED_PX2 + from * from) / (FIXED_PX2 + to * to);

const paramOf = (params: Record<string, unknown>, key: 'model' | 'imgsz') => params[key] ?? TrainingParams[key].default;

interface Measured {
  model: string;
  imgsz: number;
  imgPerS: number;
}

/**
 * What the past trainings of this server measured for `task`: training images per second of the whole run
 * (start to end, the engine's overhead taken out, validation included), newest 50 succeeded.
 */
async function measured(deps: Deps, task: TrainingTask): Promise<Measured[]> {
  const rows = await deps.db
    .selectFrom('trainings')
    .select(['parameters', 'summary', 'started_at', 'ended_at'])
    .where('task', '=', task)
    .where('status', '=', 'succeeded')
    .where('summary', 'is not', null)
    .orderBy('id', 'desc')
    .limit(50)
    .execute();
  const out: Measured[] = [];
  for (const r of rows) {
    const params = JSON.parse(r.parameters) as Record<string, unknown>;
    const summary = JSON.parse(r.summary!) as Record<string, unknown>;
    const seen = summary.train_images_seen;
    const wall = r.started_at !== null && r.ended_at !== null ? (Number(r.ended_at) - Number(r.started_at)) / 1000 : Number(summary.total_time_s);
    if (typeof seen !== 'number' || !(seen > 0) || !(wall > 0)) continue;
    out.push({ model: String(paramOf(params, 'model')), imgsz: Number(paramOf(params, 'imgsz')), imgPerS: seen / Math.max(wall - OVERHEAD_S, wall / 4) });
  }
  return out;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * Images per second for `model` at `imgsz`: the median of this server's trainings of the same task and model
 * size at the same image size; else of those at other sizes, scaled by sizeScale; else the table.
 */
export function throughput(history: readonly Measured[], model: string, imgsz: number): { imgPerS: number; basis: 'history' | 'table'; basedOn: number } {
  const same = history.filter((h) => h.model === model);
  const exact = same.filter((h) => h.imgsz === imgsz);
  const used = exact.length ? exact : same;
  if (used.length) {
    return { imgPerS: median(used.map((h) => h.imgPerS * sizeScale(h.imgsz, imgsz))), basis: 'history', basedOn: used.length };
  }
  return { imgPerS: (TABLE_IMG_PER_S_640[model] ?? TABLE_IMG_PER_S_640.n!) * sizeScale(640, imgsz), basis: 'table', basedOn: 0 };
}

/**
 * POST …/trainings/estimate: the plan a start with `body` would make on the model's current data (the same
 * freezing and checks as a start, nothing written), its time on this server, and what is too little to learn.
 */
export async function estimateTraining(deps: Deps, model: Model, body: TrainingStartBody, lang: Language): Promise<TrainingEstimateData> {
  const params = body.params ?? savedParams(model);
  assertTrainingParams(params, lang);
  const frozen = await freezeDataset(deps, model);
  const stats = dataStatsOf(frozen.manifest);
  const task = taskOf(model, body.rotated ?? frozen.hasRotated);
  const plan = planOf(params, stats);
  const modelSize = String(paramOf(params, 'model'));
  const speed = throughput(await measured(deps, task), modelSize, plan.trainSize);
  const work = plan.trainImages * plan.epochs;
  const seconds = OVERHEAD_S + work / speed.imgPerS;
  const warnings = planAdvice(task, plan, stats);
  const hours = typeof params.time === 'number' ? params.time : 0;
  if (hours > 0 && seconds > hours * 3600) warnings.push({ kind: 'time', hours: Math.round((seconds / 3600) * 10) / 10, epochs: plan.epochs });
  return {
    task,
    trainImages: plan.trainImages,
    validImages: stats.validImages,
    batch: plan.batch,
    stepsPerEpoch: plan.stepsPerEpoch,
    epochs: plan.epochs,
    steps: plan.steps,
    imgsz: plan.imgsz,
    model: modelSize,
    seconds: Math.round(hours > 0 ? Math.min(seconds, hours * 3600 + OVERHEAD_S) : seconds),
    imgPerS: Math.round(speed.imgPerS * 100) / 100,
    basis: speed.basis,
    basedOn: speed.basedOn,
    warnings,
  };
}
