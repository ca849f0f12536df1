import { fail } from '../errors.js';
import type { User } from '../db/users.js';
import type { Deps } from './deps.js';
import { randomToken, sha256 } from './crypto.js';

/**
 * One active session per account (SPEC §6): a new sign-in ends the older session, whose next call answers
 * loggedInElsewhere (99993); unknown, expired or logged-out tokens answer sessionInvalid (99990).
 */
export async function startSession(deps: Deps, user: User): Promise<string> {
  const now = deps.now();
  const token = randomToken();
  await deps.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('sessions')
      .set({ ended_at: now, end_reason: 'replaced' })
      .where('user_id', '=', user.id)
      .where('ended_at', 'is', null)
      .execute();
    await trx
      .insertInto('sessions')
      .values({ user_id: user.id, token_hash: sha256(token), created_at: now, expires_at: now + deps.config.sessionTtlS * 1000 })
      .execute();
  });
  return token;
}

export interface Authenticated {
  user: User;
  sessionId: number;
}

export async function authenticate(deps: Deps, token: string | undefined): Promise<Authenticated> {
  if (!token) fail('sessionInvalid');
  // One query for the session and its user (the foreign key cascades, so a session always has one).
  const row = await deps.sessions.findWithUser(sha256(token));
  if (!row) fail('sessionInvalid');
  const { session_id: sessionId, session_ended_at: endedAt, session_end_reason: endReason, session_expires_at: expiresAt, ...user } = row;
  if (endReason === 'replaced') fail('loggedInElsewhere');
  if (endedAt !== null || expiresAt <= deps.now()) fail('sessionInvalid');
  if (user.status !== 'approved') fail('sessionInvalid');
  return { user, sessionId };
}

export async function endSession(deps: Deps, token: string | undefined): Promise<void> {
  const { sessionId } = await authenticate(deps, token);
  await deps.sessions.end(sessionId, 'logout', deps.now());
}
