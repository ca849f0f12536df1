import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { sql } from 'kysely';
import type { AccountStatus } from '@loupe/contracts';
import type { DB, UsersTable } from './schema.js';
import { likeContains } from './like.js';

export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserPatch = Updateable<UsersTable>;

export function usersRepo(db: Kysely<DB>) {
  return {
    findById: (id: number) => db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst(),
    findByEmail: (email: string) =>
      db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst(),
    findByPhone: (phone: string) =>
      db.selectFrom('users').selectAll().where('phone', '=', phone).executeTakeFirst(),
    findByOidcSubject: (subject: string) =>
      db.selectFrom('users').selectAll().where('oidc_subject', '=', subject).executeTakeFirst(),
    async insert(user: NewUser): Promise<number> {
      const row = await db.insertInto('users').values(user).returning('id').executeTakeFirstOrThrow();
      return row.id;
    },
    async update(id: number, patch: UserPatch): Promise<void> {
      await db.updateTable('users').set(patch).where('id', '=', id).execute();
    },
    /**
     * Adds a guide id to guides_seen unless it is there already. One conditional statement, so two tabs closing
     * guides at once cannot overwrite each other's.
     */
    async addGuideSeen(id: number, guide: string): Promise<void> {
      await db
        .updateTable('users')
        .set({ guides_seen: sql<string>`case when guides_seen = '' then ${guide} else guides_seen || ',' || ${guide} end` })
        .where('id', '=', id)
        .where(sql<boolean>`',' || guides_seen || ',' not like ${`%,${guide},%`}`)
        .execute();
    },
    async remove(id: number): Promise<void> {
      await db.deleteFrom('users').where('id', '=', id).execute();
    },
    async hasAdmin(): Promise<boolean> {
      const row = await db.selectFrom('users').select('id').where('role', '=', '1').executeTakeFirst();
      return row !== undefined;
    },
    /** Pending accounts first (the review queue), then newest first. */
    /** `search` matches name, email or company (contains, any case). */
    list(status?: AccountStatus, search?: string): Promise<User[]> {
      let q = db.selectFrom('users').selectAll();
      if (status) q = q.where('status', '=', status);
      if (search) {
        const pattern = likeContains(search.toLowerCase());
        q = q.where(
          sql<boolean>`(lower(first_name || ' ' || last_name) like ${pattern} escape '\\' or lower(email) like ${pattern} escape '\\' or lower(company) like ${pattern} escape '\\')`,
        );
      }
      return q
        .orderBy(sql`case when status = 'pending' then 0 else 1 end`)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
    },
    /** Registrations never activated within the allowed time free their email and phone again. */
    async removeUnactivatedBefore(createdBefore: number): Promise<void> {
      await db
        .deleteFrom('users')
        .where('status', '=', 'unactivated')
        .where('created_at', '<', createdBefore)
        .execute();
    },
  };
}
export type UsersRepo = ReturnType<typeof usersRepo>;
