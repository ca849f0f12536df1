import { analysesRepo } from '../db/analyses.js';
import { executeAnalysis, setAnalysisStatus } from '../services/analysis/analysis.js';
import type { JobHandler } from './handlers.js';

export interface AnalysisPayload {
  analysisId: number;
}

/** An analysis of 300 images takes well under a minute; a job still running after this is stuck. */
const ANALYSIS_TIMEOUT_S = 15 * 60;

/** Runs a dataset analysis job (issue 35): the model's current data through `analyze`, the result stored per dataset version. */
export const analysisHandler: JobHandler = {
  async run(deps, job, ctx) {
    const { analysisId } = JSON.parse(job.payload) as AnalysisPayload;
    const row = await analysesRepo(deps.db).byId(analysisId);
    const model = row ? await deps.models.find(row.owner_id, row.model_id) : undefined;
    if (!row || !model) return;
    await executeAnalysis(deps, model, row, ctx, true);
  },
  async fail(deps, job, reason) {
    const row = await analysesRepo(deps.db).byJob(job.id);
    if (row && (row.status === 'queued' || row.status === 'running')) await setAnalysisStatus(deps, row.id, 'failed', { error: reason, endJob: true });
  },
  timeoutS: async () => ANALYSIS_TIMEOUT_S,
};
