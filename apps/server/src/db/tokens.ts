import type { Kysely, Selectable } from 'kysely';
import type { DB, LoginCodesTable, OneTimeTokensTable, TokenPurpose } from './schema.js';

export type OneTimeToken = Selectable<OneTimeTokensTable>;
export type LoginCode = Selectable<LoginCodesTable>;

/** Activation and reset links (single use) and sign-in codes. Only hashes are stored. */
export function tokensRepo(db: Kysely<DB>) {
  return {
    async createToken(userId: number, purpose: TokenPurpose, tokenHash: string, now: number, ttlS: number) {
      await db
        .insertInto('one_time_tokens')
        .values({ user_id: userId, purpose, token_hash: tokenHash, created_at: now, expires_at: now + ttlS * 1000 })
        .execute();
    },
    findToken: (purpose: TokenPurpose, tokenHash: string) =>
      db
        .selectFrom('one_time_tokens')
        .selectAll()
        .where('purpose', '=', purpose)
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst(),
    /** Marks the token used; false when another request used it first. */
    async useToken(id: number, now: number): Promise<boolean> {
      const r = await db
        .updateTable('one_time_tokens')
        .set({ used_at: now })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    async useAllTokensOf(userId: number, purpose: TokenPurpose, now: number): Promise<void> {
      await db
        .updateTable('one_time_tokens')
        .set({ used_at: now })
        .where('user_id', '=', userId)
        .where('purpose', '=', purpose)
        .where('used_at', 'is', null)
        .execute();
    },
    latestCode: (email: string) =>
      db
        .selectFrom('login_codes')
        .selectAll()
        .where('email', '=', email)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .executeTakeFirst(),
    async createCode(email: string, codeHash: string, now: number, ttlS: number): Promise<void> {
      // A new code replaces the old ones.
      await db.deleteFrom('login_codes').where('email', '=', email).execute();
      await db
        .insertInto('login_codes')
        .values({ email, code_hash: codeHash, created_at: now, expires_at: now + ttlS * 1000 })
        .execute();
    },
    async countAttempt(id: number): Promise<void> {
      await db
        .updateTable('login_codes')
        .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
        .where('id', '=', id)
        .execute();
    },
    async useCode(id: number, now: number): Promise<boolean> {
      const r = await db
        .updateTable('login_codes')
        .set({ used_at: now })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
  };
}
export type TokensRepo = ReturnType<typeof tokensRepo>;
