import fs from 'node:fs';
import path from 'node:path';
import { failure, parseTestSettings, TtaTasks, type SdkType } from '@loupe/contracts';
import type { Job } from '../db/jobs.js';
import { packsRepo, type Pack } from '../db/packs.js';
import type { TrainingRow } from '../db/trainings.js';
import type { Deps } from '../services/deps.js';
import { storedSuggestion } from '../services/testing/suggest.js';
import { PACK_SHUTDOWN_REASON, setPackStatus, type ExportPayload } from '../services/delivery/packs.js';
import { keep, linkBlob } from './artifacts.js';
import { engineEnv, publicFailure, runEngine, type EngineEvent } from './engine.js';
import { labelsRepo } from '../db/labels.js';
import { measurementSettings } from '../services/measurement/settings.js';
import { buildSdkZip, writeZip, type SdkInfo } from './sdk-zip.js';
import type { JobContext } from './training-job.js';

/** Exports without a stop button: only a shutdown ends one early. */
class Stopped extends Error {}

/**
 * `export --format onnx --width W --height H --max-det N` of the training's best.pt (a detector's NMS in the
 * graph). A detector's SDK also gets the graph without NMS (`--no-nms`, for OpenCV); the SDK becomes a ZIP
 * (sdk-zip.ts). The file goes to
 * the blob store; the pack ends success, or failed with the engine's message.
 */
export async function runExportJob(deps: Deps, job: Job, ctx: JobContext): Promise<void> {
  const { packId } = JSON.parse(job.payload) as ExportPayload;
  const pack = await packsRepo(deps.db).byId(packId);
  if (!pack) return;
  try {
    const file = await makePack(deps, pack, ctx);
    if (ctx.lost()) return;
    const bytes = (await fs.promises.stat(file)).size;
    await setPackStatus(deps, pack.id, 'success', { artifact_sha: await keep(deps, file), bytes });
  } catch (e) {
    // Another runner took the job over: it records the outcome.
    if (ctx.lost()) return;
    if (!(e instanceof Stopped)) deps.log.warn(`pack ${pack.id} failed: ${(e as Error).stack ?? String(e)}`);
    const reason = e instanceof Stopped ? PACK_SHUTDOWN_REASON : publicFailure((e as Error).message);
    await setPackStatus(deps, pack.id, 'failed', { error: reason });
  }
}

/** Tasks whose graph ends in NMS (boxes, rotated boxes, OCR's text lines). */
function isDetector(task: string): boolean {
  return task === 'detect' || task === 'obb' || task === 'ocr';
}

/**
 * What is tested is what ships: the thresholds of the training's latest succeeded test (confidence; a detector's
 * NMS IoU and class-agnostic NMS; test-time augmentation) go into the exported model, so the SDK keeps what the
 * user saw on /test. The confidence is the version's suggested one (best F1 of the agent's auto test,
 * trainings.suggested_conf) when stored: the agent tests at a low confidence to sweep it, which must never ship.
 * Without a test, the engine's defaults. sdk.json and the model's metadata say which. The
 * views of test-time augmentation go into the graph with NMS; the graph without NMS (OpenCV cannot load flips)
 * names them for the Python SDK, which runs them itself. A classifier's or segmenter's one graph holds its views
 * as flips OpenCV can load.
 */
async function testedSettings(deps: Deps, training: TrainingRow): Promise<string[]> {
  const run = await deps.db
    .selectFrom('test_runs')
    .select('settings')
    .where('training_id', '=', training.id)
    .where('status', '=', 'succeeded')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  const suggested = storedSuggestion(training);
  if (!run) return suggested ? ['--conf', String(suggested.f1.overall)] : [];
  const s = parseTestSettings(run.settings);
  const detector = isDetector(training.task);
  return [
    '--conf', String(suggested?.f1.overall ?? s.conf),
    ...(detector ? ['--iou', String(s.iou), ...(s.agnostic ? ['--agnostic'] : [])] : []),
    ...(s.tta !== 'off' && TtaTasks.includes(training.task) ? ['--tta', s.tta] : []),
  ];
}

async function makePack(deps: Deps, pack: Pack, ctx: JobContext): Promise<string> {
  const training = await deps.trainings.byId(pack.training_id);
  const best = training ? (JSON.parse(training.artifacts) as Record<string, string>).best : undefined;
  if (!training || !best || !(await deps.blobs.exists(best))) throw new Error(failure('weightsMissing'));
  // A link: blobs are immutable and the engine only reads the checkpoint.
  await linkBlob(deps, best, path.join(ctx.workDir, 'best.pt'));
  const tested = await testedSettings(deps, training);

  const exportOnnx = async (out: string, extra: string[]) => {
    let summary: Record<string, unknown> = {};
    let error: string | null = null;
    const onEvent = async (e: EngineEvent) => {
      if (e.event === 'done') summary = e.summary;
      else if (e.event === 'error') error = failure(e.code, e.message);
    };
    const args = ['export', '--model', 'best.pt', '--format', 'onnx', '--width', String(pack.input_w), '--height', String(pack.input_h), '--max-det', String(pack.max_det), ...tested, '--out', out, ...extra];
    const log = (m: string) => deps.log.warn(`pack ${pack.id}: ${m}`);
    const run = runEngine(deps.config.engine.command, args, { cwd: ctx.workDir, env: engineEnv(deps.config.engine.pythonPath), onEvent, log });
    ctx.onStart(run);
    const code = await run.exited;
    if (ctx.shuttingDown()) throw new Stopped();
    if (code !== 0) throw new Error(error ?? failure('engineExited', `exit code ${code}: ${run.tail() || 'no output'}`));
    return summary;
  };

  const model = path.join(ctx.workDir, 'model.onnx');
  const summary = await exportOnnx(model, []);
  // OCR: the engine writes the recognizer next to the text detector (engine/README.md, OCR).
  const rec = training.task === 'ocr' ? path.join(ctx.workDir, 'model-rec.onnx') : null;
  if (pack.kind === 'model') {
    if (!rec) return model;
    const zip = path.join(ctx.workDir, 'model.zip');
    await writeZip(zip, { 'model.onnx': model, 'model-rec.onnx': rec }, { 'labels.json': `${JSON.stringify(summary.labels, null, 1)}\n` });
    return zip;
  }

  // A detector's NMS is what OpenCV cannot load; classifiers and segmenters have none, their model.onnx serves both SDKs.
  const detector = isDetector(training.task);
  const raw = detector ? path.join(ctx.workDir, 'model-raw.onnx') : null;
  // (The OCR engine writes model-raw-rec.onnx too, the recognizer again: unused.)
  const rawSummary = raw ? await exportOnnx(raw, ['--no-nms']) : {};
  const owner = await deps.db.selectFrom('models').select(['name', 'type']).where('id', '=', pack.model_id).executeTakeFirstOrThrow();
  const zip = path.join(ctx.workDir, 'sdk.zip');
  await buildSdkZip(zip, { model, raw, rec }, {
    model: owner.name,
    version: `v${training.version}`,
    sdkType: pack.sdk_type as SdkType,
    task: training.task,
    labels: summary.labels as string[],
    inputW: Number(summary.input_width),
    inputH: Number(summary.input_height),
    cameraW: pack.input_w,
    cameraH: pack.input_h,
    maxDet: detector ? pack.max_det : null,
    conf: Number(summary.conf),
    iou: detector ? Number(summary.iou) : null,
    tta: typeof summary.tta === 'string' ? summary.tta : 'off',
    rawTta: typeof rawSummary.tta === 'string' ? rawSummary.tta : 'off',
    ...(owner.type === 'MEASURE' ? { measure: await sdkMeasure(deps, pack.model_id) } : {}),
  });
  return zip;
}

/**
 * A MEASURE model's calibration and tolerances for sdk.json, labels by name. Tolerances in mm without a
 * calibration judge nothing on the platform (results.ts), so none ship.
 */
async function sdkMeasure(deps: Deps, modelId: number): Promise<NonNullable<SdkInfo['measure']>> {
  const { mmPerPx, tolerances } = await measurementSettings(deps, modelId);
  if (!tolerances || (tolerances.unit === 'mm' && mmPerPx === null)) return { mmPerPx, tolerances: null };
  const names = new Map((await labelsRepo(deps.db).list(modelId)).map((l) => [l.id, l.name]));
  return {
    mmPerPx,
    tolerances: {
      unit: tolerances.unit,
      count: tolerances.count ?? null,
      labels: tolerances.labels.filter((l) => names.has(l.labelId)).map((l) => ({ label: names.get(l.labelId)!, count: l.count ?? null, fields: l.fields })),
    },
  };
}
