import type { Kysely, Selectable } from 'kysely';
import type { DB, SessionEndReason, SessionsTable } from './schema.js';

export type Session = Selectable<SessionsTable>;

export function sessionsRepo(db: Kysely<DB>) {
  return {
    findByHash: (tokenHash: string) =>
      db.selectFrom('sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst(),
    /** The session and its user in one query: every signed-in request asks this first. */
    findWithUser: (tokenHash: string) =>
      db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .selectAll('users')
        .select(['sessions.id as session_id', 'sessions.ended_at as session_ended_at', 'sessions.end_reason as session_end_reason', 'sessions.expires_at as session_expires_at'])
        .where('sessions.token_hash', '=', tokenHash)
        .executeTakeFirst(),
    async create(userId: number, tokenHash: string, now: number, expiresAt: number): Promise<void> {
      await db
        .insertInto('sessions')
        .values({ user_id: userId, token_hash: tokenHash, created_at: now, expires_at: expiresAt })
        .execute();
    },
    async end(id: number, reason: SessionEndReason, now: number): Promise<void> {
      await db
        .updateTable('sessions')
        .set({ ended_at: now, end_reason: reason })
        .where('id', '=', id)
        .where('ended_at', 'is', null)
        .execute();
    },
    /** Ends every open session of the user (one active login per account). */
    async endAllOf(userId: number, reason: SessionEndReason, now: number): Promise<void> {
      await db
        .updateTable('sessions')
        .set({ ended_at: now, end_reason: reason })
        .where('user_id', '=', userId)
        .where('ended_at', 'is', null)
        .execute();
    },
  };
}
export type SessionsRepo = ReturnType<typeof sessionsRepo>;
