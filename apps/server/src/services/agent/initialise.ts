import path from 'node:path';
import type { DatasetAnalysis } from '@loupe/contracts';
import { AppError } from '../../errors.js';
import { errorMessage } from '../../i18n.js';
import { analyseForAgent, defaultImgsz } from '../analysis/analysis.js';
import { savedParams } from '../training/parameters.js';
import { AgentFailure, checkHalt, type AgentJob } from './job.js';

type Value = string | number | boolean;

const show = (v: unknown) => (typeof v === 'number' ? Number(v.toFixed(4)) : String(v));

/**
 * Phase 1: the dataset analysis (or the stored one of the same data) and the base configuration: the analysis's
 * recommendations under the user's saved parameters (a value the user chose is theirs; the log says when it
 * overrides a recommendation). One log entry per recommendation with its reason, one per error among the findings.
 */
export async function initialise(a: AgentJob): Promise<void> {
  const { deps, ctx, model } = a;
  let analysis: { id: number; result: DatasetAnalysis };
  try {
    analysis = await analyseForAgent(deps, model, a.job.owner_id, {
      imgsz: defaultImgsz(model),
      jobId: a.job.id,
      workDir: path.join(ctx.workDir, 'analysis'),
      ctx: { onStart: ctx.onStart, cancelled: () => ctx.cancelled() || ctx.shuttingDown() || ctx.timedOut() || ctx.lost() },
    });
  } catch (e) {
    checkHalt(ctx);
    if (!(e instanceof AppError)) throw e;
    // The reason is stored in the user's language: the run's error field shows it as written.
    const lang = a.settings.language;
    const own = e.key === 'datasetAnalysisFailed' || e.key === 'imageResolutionFailed';
    throw new AgentFailure(own ? errorMessage(lang, e.key, e.vars) : errorMessage(lang, 'datasetAnalysisFailed', { detail: errorMessage(lang, e.key, e.vars) }));
  }
  checkHalt(ctx);
  const { result } = analysis;
  // The agent's own setting is not a training parameter.
  const { agent_early_stop: _agentOnly, ...saved } = savedParams(model) as Record<string, unknown>;
  await a.rec.log('analysed', { images: result.counts.images, labeled: result.counts.labeled, instances: result.counts.instances, classes: result.counts.perClass.length });
  for (const r of result.recommendations) {
    const set = Object.entries(r.set).map(([k, v]) => `${k}=${show(v)}`).join(', ');
    await a.rec.log(`recommendation.${r.code}`, { ...r.params, set });
    for (const [key, value] of Object.entries(r.set)) {
      if (key in saved && saved[key] !== value) await a.rec.log('savedKept', { key, value: show(saved[key]), recommended: show(value) });
    }
  }
  for (const f of result.findings.filter((x) => x.severity === 'error')) await a.rec.log(`finding.${f.code}`, { ...f.params, count: f.count });
  const baseParams: Record<string, unknown> = { ...(result.baseParams as Record<string, Value>), ...saved };
  await a.rec.saveState({ analysisId: analysis.id, baseParams });
}
