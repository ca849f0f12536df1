import { parseTestSettings, type SuggestedConfidences, type TestAnalysisData, type TrainingTask } from '@loupe/contracts';
import { fail } from '../../errors.js';
import type { Model } from '../../db/models.js';
import type { Deps } from '../deps.js';
import { confusion, detectionErrors } from './errors.js';
import type { TestImageDetail } from './record.js';
import { classScores, countsAt, f1Of, prCurve, precisionOf, recallOf, totalAt, type ClassScores } from './scores.js';
import { labelNames, runDetails, storedSuggestion, suggestFrom } from './suggest.js';

/** Bins of the confidence histograms. */
export const CONF_BINS = 20;
/** The F1 curves' confidence step. */
export const F1_STEP = 0.01;
/** The recall target of a suggestion computed on the fly (the agent's default). */
export const DEFAULT_RECALL_TARGET = 0.95;

const round4 = (v: number) => Math.round(v * 1e4) / 1e4;

/** Confidences from `from` to 1 in F1_STEP steps. */
function steps(from: number): number[] {
  const out: number[] = [];
  for (let k = 0; round4(from + k * F1_STEP) <= 1; k++) out.push(round4(from + k * F1_STEP));
  return out;
}

/** Histograms of the true and false positives' confidences, CONF_BINS bins from `from` to 1 (the last bin holds 1). */
function histograms(classes: ClassScores[], from: number): TestAnalysisData['confidence'] {
  const width = (1 - from) / CONF_BINS;
  const edges = Array.from({ length: CONF_BINS + 1 }, (_, i) => round4(from + i * width));
  const tp = new Array<number>(CONF_BINS).fill(0);
  const fp = new Array<number>(CONF_BINS).fill(0);
  for (const h of classes.flatMap((c) => c.hits)) {
    if (h.conf < from) continue;
    // The epsilon keeps a confidence on an edge in the bin it starts (0.4 / 0.025 is 15.99… in floating point).
    const bin = width > 0 ? Math.min(CONF_BINS - 1, Math.floor((h.conf - from) / width + 1e-9)) : CONF_BINS - 1;
    (h.tp ? tp : fp)[bin]!++;
  }
  return { edges, tp, fp };
}

/** Per-class P/R/F1 of segmentation: the engine's pixel figures (its summary's per_class), instances as support. */
function segmentClasses(classes: ClassScores[], summary: Record<string, unknown> | null): TestAnalysisData['perClass'] {
  const perClass = (summary?.per_class ?? {}) as Record<string, { IoU?: number; precision?: number; recall?: number; dice?: number }>;
  const support = new Map(classes.map((c) => [c.name, c.support]));
  return Object.entries(perClass).map(([name, v]) => ({
    name,
    precision: v.precision ?? 0,
    recall: v.recall ?? 0,
    f1: v.dice ?? 0,
    support: support.get(name) ?? 0,
    iou: v.IoU ?? 0,
  }));
}

export interface AnalysisInput {
  task: TrainingTask;
  details: TestImageDetail[];
  names: ReadonlyMap<number, string>;
  conf: number;
  minConf: number;
  summary: Record<string, unknown> | null;
  /** The stored suggestion when it comes from this run, else null (one is computed). */
  stored: SuggestedConfidences | null;
  testRunId: number;
}

/**
 * A finished run's statistics at `conf` from its stored matches, in one pass over them (no engine call):
 * per-class figures, PR and F1 curves, the confidence histograms, errors by kind (classification: the confusion
 * matrix and wrong classes) and the suggested confidences. Segmentation judges pixels: the engine's per-class
 * figures only, no curves.
 */
export function analyse(a: AnalysisInput): TestAnalysisData {
  const classes = classScores(a.details, a.names, a.minConf);
  const base = { task: a.task, conf: a.conf, minConf: a.minConf };
  if (a.task === 'segment') {
    const empty = { edges: [], tp: [], fp: [] };
    return { ...base, perClass: segmentClasses(classes, a.summary), prCurves: [], f1Curve: [], f1CurvePerClass: [], confidence: empty, errors: {}, confusion: null, suggested: null };
  }
  const perClass = classes.map((c) => {
    const n = countsAt(c, a.conf);
    return { name: c.name, precision: precisionOf(n), recall: recallOf(n), f1: f1Of(n), support: c.support };
  });
  const at = steps(a.minConf);
  const classify = a.task === 'classify';
  const multi = a.details.some((d) => d.classification?.multiLabel);
  const labels = classes.map((c) => c.name);
  const matrix = classify && !multi ? confusion(a.details, a.conf, a.names, labels) : null;
  return {
    ...base,
    perClass,
    prCurves: classes.map((c) => ({ name: c.name, points: prCurve(c) })),
    f1Curve: at.map((t) => [t, f1Of(totalAt(classes, t))]),
    f1CurvePerClass: classes.map((c) => ({ name: c.name, points: at.map((t): [number, number] => [t, f1Of(countsAt(c, t))]) })),
    confidence: histograms(classes, a.minConf),
    errors: classify ? (matrix ? { wrongClass: matrix.wrong } : {}) : detectionErrors(a.details, a.conf, a.task),
    confusion: matrix ? { labels, matrix: matrix.matrix } : null,
    suggested: a.stored ?? suggestFrom(classes, a.minConf, a.testRunId, { recallTarget: DEFAULT_RECALL_TARGET, ngNames: null }),
  };
}

/**
 * GET AgentPaths.testAnalysis: a succeeded run of this model (notFound otherwise) at `conf` (default the run's
 * own; below it nothing was kept: 400 validation).
 */
export async function testAnalysis(deps: Deps, model: Model, testId: number, conf: number | undefined): Promise<TestAnalysisData> {
  const run = await deps.testRuns.find(model.id, testId);
  if (!run || run.status !== 'succeeded') fail('notFound');
  const minConf = parseTestSettings(run.settings).conf;
  const at = conf ?? minConf;
  if (at < minConf) fail('validation', { field: 'conf', reason: 'range' });
  const training = await deps.trainings.byId(run.training_id);
  if (!training) fail('notFound');
  const stored = storedSuggestion(training);
  const { details } = await runDetails(deps, run.id);
  return analyse({
    task: training.task,
    details,
    names: await labelNames(deps, model.id),
    conf: at,
    minConf,
    summary: run.summary ? (JSON.parse(run.summary) as Record<string, unknown>) : null,
    stored: stored?.testRunId === run.id ? stored : null,
    testRunId: run.id,
  });
}
