import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

export interface OutboxRow {
  id: number;
  to_address: string;
  subject: string;
  text: string;
  link: string | null;
  created_at: number;
}

export function outboxRepo(db: Kysely<DB>) {
  return {
    async add(mail: Omit<OutboxRow, 'id'>): Promise<void> {
      await db.insertInto('outbox').values(mail).execute();
    },
    /** Newest first. */
    list(to?: string): Promise<OutboxRow[]> {
      let q = db.selectFrom('outbox').selectAll();
      if (to) q = q.where('to_address', '=', to);
      return q.orderBy('id', 'desc').limit(500).execute();
    },
  };
}
export type OutboxRepo = ReturnType<typeof outboxRepo>;
