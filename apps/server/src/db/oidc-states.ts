import type { Kysely, Selectable } from 'kysely';
import type { DB, OidcStatesTable } from './schema.js';

export type OidcState = Selectable<OidcStatesTable>;

/** The per-attempt secrets of a single sign-on round trip (state, nonce, PKCE verifier). */
export function oidcStatesRepo(db: Kysely<DB>) {
  return {
    async put(row: OidcState): Promise<void> {
      await db.insertInto('oidc_states').values(row).execute();
    },
    /** Returns and deletes the row: a state can be redeemed once. */
    async take(state: string): Promise<OidcState | undefined> {
      const row = await db.selectFrom('oidc_states').selectAll().where('state', '=', state).executeTakeFirst();
      if (row) await db.deleteFrom('oidc_states').where('state', '=', state).execute();
      return row;
    },
    async removeOlderThan(createdBefore: number): Promise<void> {
      await db.deleteFrom('oidc_states').where('created_at', '<', createdBefore).execute();
    },
  };
}
