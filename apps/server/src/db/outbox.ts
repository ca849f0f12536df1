import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import { likeContains } from './like.js';

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
    get: (id: number): Promise<OutboxRow | undefined> => db.selectFrom('outbox').selectAll().where('id', '=', id).executeTakeFirst(),
    /** One page, newest first; `search` matches the address (contains, any case). */
    async page(search: string | undefined, offset: number, limit: number): Promise<{ rows: OutboxRow[]; total: number }> {
      const pattern = search ? likeContains(search.toLowerCase()) : null;
      let rows = db.selectFrom('outbox').selectAll();
      let count = db.selectFrom('outbox').select((eb) => eb.fn.countAll<number | string>().as('n'));
      if (pattern) {
        rows = rows.where(sql<boolean>`lower(to_address) like ${pattern} escape '\\'`);
        count = count.where(sql<boolean>`lower(to_address) like ${pattern} escape '\\'`);
      }
      const [list, counted] = await Promise.all([
        rows.orderBy('id', 'desc').offset(offset).limit(limit).execute(),
        count.executeTakeFirstOrThrow(),
      ]);
      return { rows: list, total: Number(counted.n) };
    },
  };
}
export type OutboxRepo = ReturnType<typeof outboxRepo>;
