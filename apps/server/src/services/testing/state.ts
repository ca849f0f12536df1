import { failure, type TestProgressEvent, type TestStatus } from '@loupe/contracts';
import type { Deps } from '../deps.js';

const TERMINAL: TestStatus[] = ['succeeded', 'failed', 'cancelled'];
export const isTerminal = (s: TestStatus) => TERMINAL.includes(s);

/** SPEC §4: a stopped test fails, with this reason. */
export const STOPPED_REASON = failure('stopped');
/** Why a test ends failed when the server stops or dies under it. */
export const TEST_SHUTDOWN_REASON = failure('serverStoppedTest');

/**
 * Moves a test run (and its model's test status) to `status` and tells the live streams. A terminal status
 * also ends its test job (not an agent's job it runs in) and releases the model (project status back to 'no'); one that is not a success puts the
 * run's images that were still waiting back to what they were before (tested by an earlier run or untested).
 */
export async function setTestStatus(deps: Deps, runId: number, status: TestStatus, error: string | null = null): Promise<void> {
  const run = await deps.testRuns.byId(runId);
  if (!run) return;
  const now = deps.now();
  const done = isTerminal(status);
  await deps.db.transaction().execute(async (trx) => {
    await deps.testRuns.update(
      runId,
      {
        status,
        ...(status === 'preparing' && run.started_at === null ? { started_at: now } : {}),
        ...(done ? { ended_at: now, ...(error ? { error } : {}) } : {}),
      },
      trx,
    );
    await trx
      .updateTable('models')
      .set({ test_status: status, project_status: done ? 'no' : 'testing', updated_at: now })
      .where('id', '=', run.model_id)
      .where('test_id', '=', runId)
      .execute();
    if (done && run.job_id !== null) {
      // A run inside another job (the agent's auto test) leaves that job to its own handler.
      await trx
        .updateTable('jobs')
        .set({ state: status as 'succeeded' | 'failed' | 'cancelled', finished_at: now, ...(error ? { error } : {}) })
        .where('id', '=', run.job_id)
        .where('kind', '=', 'test')
        .execute();
    }
    if (done && status !== 'succeeded') {
      const mine = trx.selectFrom('test_run_images').select('image_id').where('test_run_id', '=', runId);
      for (const [state, before] of [['tested', 'is not'], ['untested', 'is']] as const) {
        await trx.updateTable('images').set({ test_state: state }).where('id', 'in', mine).where('test_state', '=', 'unprocessed').where('test_result_count', before, null).execute();
      }
    }
  });
  if (!done) publishProgress(deps, runId, { phase: status === 'testing' ? 'testing' : status === 'preparing' ? 'preparing' : 'queued', done: run.done, total: run.image_count });
  deps.testEvents.publish(runId, { type: 'state', data: { status, error } });
}

export function publishProgress(deps: Deps, runId: number, progress: TestProgressEvent): void {
  deps.testEvents.publish(runId, { type: 'progress', data: progress });
}
