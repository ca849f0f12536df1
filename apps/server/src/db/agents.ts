import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { AgentRunsTable, AgentTrialsTable, DB } from './schema.js';

export type AgentRunRow = Selectable<AgentRunsTable>;
export type AgentTrialRow = Selectable<AgentTrialsTable>;

/** Agent runs (issue 35) and their tuning trials. */
export function agentsRepo(db: Kysely<DB>) {
  return {
    async insert(d: Kysely<DB>, row: Insertable<AgentRunsTable>): Promise<number> {
      return (await d.insertInto('agent_runs').values(row).returning('id').executeTakeFirstOrThrow()).id;
    },
    byId: (id: number) => db.selectFrom('agent_runs').selectAll().where('id', '=', id).executeTakeFirst(),
    find: (modelId: number, id: number) => db.selectFrom('agent_runs').selectAll().where('model_id', '=', modelId).where('id', '=', id).executeTakeFirst(),
    list: (modelId: number) => db.selectFrom('agent_runs').selectAll().where('model_id', '=', modelId).orderBy('id', 'desc').execute(),
    /** The model's run that has not ended (one at a time: jobs_active_uq on the agent's job). */
    active: (modelId: number) =>
      db.selectFrom('agent_runs').select('id').where('model_id', '=', modelId).where('phase', 'not in', ['complete', 'failed', 'cancelled']).executeTakeFirst(),
    async update(id: number, patch: Updateable<AgentRunsTable>, d: Kysely<DB> = db): Promise<void> {
      await d.updateTable('agent_runs').set(patch).where('id', '=', id).execute();
    },
    trials: (agentId: number) => db.selectFrom('agent_trials').selectAll().where('agent_id', '=', agentId).orderBy('number').execute(),
    /** A trial as the tuner last reported it (started, then ended): one row per number. */
    async upsertTrial(row: Insertable<AgentTrialsTable> & { agent_id: number; number: number }): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('agent_trials').where('agent_id', '=', row.agent_id).where('number', '=', row.number).execute();
        await trx.insertInto('agent_trials').values(row).execute();
      });
    },
    async clearTrials(agentId: number): Promise<void> {
      await db.deleteFrom('agent_trials').where('agent_id', '=', agentId).execute();
    },
  };
}
export type AgentsRepo = ReturnType<typeof agentsRepo>;
