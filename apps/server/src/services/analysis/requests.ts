import { failure, type AnalysisStartBody, type DatasetAnalysis, type DatasetAnalysisData } from '@loupe/contracts';
import { fail } from '../../errors.js';
import { analysesRepo, type AnalysisRow } from '../../db/analyses.js';
import type { Model } from '../../db/models.js';
import type { User } from '../../db/users.js';
import type { Deps } from '../deps.js';
import { defaultImgsz } from './analysis.js';
import { datasetVersion } from './manifest.js';
import { isUniqueViolation } from '../../db/database.js';

/** Why an analysis whose job ended without recording it (its runner or its agent died) shows failed. */
const ORPHAN_REASON = failure('runnerLost');

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

/** An analysis as the API shows it; `currentSha` is the hash of the model's data now (stale when it differs). */
export function analysisView(row: AnalysisRow, currentSha: string): DatasetAnalysisData {
  return {
    id: row.id,
    modelId: row.model_id,
    status: row.status,
    stale: row.manifest_sha !== currentSha,
    imgsz: row.imgsz,
    result: row.result ? (JSON.parse(row.result) as DatasetAnalysis) : null,
    error: row.error,
    createdAt: iso(row.created_at)!,
    finishedAt: iso(row.finished_at),
  };
}

/** The model's latest analysis, whatever its status, or analysisNotFound. */
export async function getAnalysis(deps: Deps, model: Model): Promise<DatasetAnalysisData> {
  await analysesRepo(deps.db).settleOrphans(model.id, ORPHAN_REASON, deps.now());
  const row = await analysesRepo(deps.db).latest(model.id);
  if (!row) fail('analysisNotFound');
  return analysisView(row, (await datasetVersion(deps, model)).sha);
}

/**
 * Starts an analysis of the model's current data (SPEC §4 analysis job): the completed one of the same data and
 * image size when there is one and `force` is not set; else a queued row and its job, in one transaction. A model
 * without images is refused before anything is written; one analysis runs per model at a time.
 */
export async function startAnalysis(deps: Deps, user: User, model: Model, body: AnalysisStartBody): Promise<DatasetAnalysisData> {
  const repo = analysesRepo(deps.db);
  const imgsz = body.imgsz ?? defaultImgsz(model);
  const version = await datasetVersion(deps, model);
  if (version.images.length === 0) fail('datasetAnalysisFailed', { detail: 'the dataset has no images' });
  const done = await repo.completed(model.id, version.sha, imgsz);
  if (done && !body.force) return analysisView(done, version.sha);
  await repo.settleOrphans(model.id, ORPHAN_REASON, deps.now());
  if (await repo.active(model.id)) fail('ongoingAnalysis');
  const now = deps.now();
  let id: number;
  try {
    id = await deps.db.transaction().execute(async (trx) => {
      const jobId = await deps.jobs.insert(trx, { kind: 'analysis', model_id: model.id, owner_id: user.id, priority: user.training_priority, state: 'queued', payload: '{}', created_at: now });
      const analysisId = await repo.insert(trx, {
        model_id: model.id,
        owner_id: user.id,
        job_id: jobId,
        manifest_sha: version.sha,
        imgsz,
        status: 'queued',
        result: null,
        error: null,
        created_at: now,
        finished_at: null,
      });
      await deps.jobs.update(jobId, { payload: JSON.stringify({ analysisId }) }, trx);
      return analysisId;
    });
  } catch (e) {
    // Two starts racing past the check: the one-active-job index decides.
    if (isUniqueViolation(e)) fail('ongoingAnalysis');
    throw e;
  }
  // The answer is what this call did (queued): read before the runner may take the job and move it on.
  const queued = analysisView((await repo.byId(id))!, version.sha);
  deps.queue.kick();
  return queued;
}
