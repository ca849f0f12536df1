import { sql } from 'kysely';
import { fail } from '../errors.js';
import type { Deps } from './deps.js';

/**
 * Per-account sign-in lockout (password and code sign-in share it), beside the per-address rate limit.
 *
 * Two counts per account, forgotten an hour after their last failure:
 * - per (account, address): after `addressFree` failures each further failure locks the account *for that
 *   address* for addressBaseS·2^k seconds (30 s, 60 s, 2 min, ... up to addressCapS, 15 min). One attacker's
 *   address gets ten guesses, then about four an hour, and the lock costs the real user nothing: they sign in from
 *   their own address.
 * - per account (address ''): after `accountFree` failures from all addresses together, each further failure
 *   locks the account everywhere for accountBaseS·2^k seconds, capped at accountCapS (60 s). This slows an
 *   attacker who spreads guesses over many addresses to about one a minute. The real user does not wait at
 *   all from an address they signed in from in the last 30 days (a success marks it trusted, and the
 *   account-wide lock skips trusted addresses), and at most a minute from a new one.
 * A success starts its address's count again; the account-wide count is left to expire, so that the owner
 * signing in does not hand an attacker a fresh set of free guesses.
 * A locked attempt is refused before the password or code is checked (the right password too, with the time
 * left) and does not count, so retrying does not lengthen the lock. Unknown accounts are counted and locked
 * the same way, so the lockout tells nobody which e-mail addresses are registered.
 */
const ACCOUNT_WIDE = '';
const TRUST_MS = 30 * 24 * 3600 * 1000;

function lockMs(failures: number, free: number, baseS: number, capS: number): number {
  if (failures < free) return 0;
  // 2^k overflows nothing: the exponent is capped long before the cap stops growing the product.
  return Math.min(baseS * 2 ** Math.min(failures - free, 30), capS) * 1000;
}

/** The address as stored: IPv6 and IPv4-mapped addresses fit; an absent one counts as its own address. */
const addressKey = (address: string | undefined) => (address || 'unknown').slice(0, 64);

/** Throws accountLocked (HTTP 429, with retryAfterS) while the account is locked for this address or everywhere. */
export async function assertNotLocked(deps: Deps, account: string, address: string | undefined): Promise<void> {
  const rows = await deps.db
    .selectFrom('login_failures')
    .select(['address', 'locked_until', 'trusted_until'])
    .where('account', '=', account)
    .where('address', 'in', [addressKey(address), ACCOUNT_WIDE])
    .execute();
  const now = deps.now();
  const trusted = rows.some((r) => r.address !== ACCOUNT_WIDE && Number(r.trusted_until) > now);
  const until = Math.max(0, ...rows.filter((r) => r.address !== ACCOUNT_WIDE || !trusted).map((r) => Number(r.locked_until)));
  const left = until - now;
  if (left > 0) {
    const seconds = Math.ceil(left / 1000);
    fail('accountLocked', { seconds }, { retryAfterS: seconds });
  }
}

/** Counts one failed sign-in; when it starts a lock, throws accountLocked instead of letting the caller answer. */
export async function recordFailure(deps: Deps, account: string, address: string | undefined): Promise<void> {
  const now = deps.now();
  const { lockout } = deps.config;
  const forgetBefore = now - lockout.forgetAfterS * 1000;
  const counts: [string, number, number, number][] = [
    [addressKey(address), lockout.addressFree, lockout.addressBaseS, lockout.addressCapS],
    [ACCOUNT_WIDE, lockout.accountFree, lockout.accountBaseS, lockout.accountCapS],
  ];
  let lockedFor = 0;
  let trusted = false;
  for (const [addr, free, baseS, capS] of counts) {
    // One statement: two failures at once both count.
    const row = await deps.db
      .insertInto('login_failures')
      .values({ account, address: addr, failures: 1, locked_until: 0, last_at: now })
      .onConflict((oc) =>
        oc.columns(['account', 'address']).doUpdateSet({
          failures: sql<number>`case when login_failures.last_at < ${forgetBefore} then 1 else login_failures.failures + 1 end`,
          last_at: now,
        }),
      )
      .returning(['failures', 'trusted_until'])
      .executeTakeFirstOrThrow();
    if (addr !== ACCOUNT_WIDE) trusted = Number(row.trusted_until) > now;
    const ms = lockMs(Number(row.failures), free, baseS, capS);
    if (ms > 0) {
      await deps.db.updateTable('login_failures').set({ locked_until: now + ms }).where('account', '=', account).where('address', '=', addr).execute();
      // The account-wide lock does not apply to the owner's trusted address (assertNotLocked).
      if (addr !== ACCOUNT_WIDE || !trusted) lockedFor = Math.max(lockedFor, ms);
    }
  }
  if (lockedFor > 0) {
    const seconds = Math.ceil(lockedFor / 1000);
    fail('accountLocked', { seconds }, { retryAfterS: seconds });
  }
}

/** A successful sign-in starts its address's count again and trusts the address for 30 days. */
export async function clearFailures(deps: Deps, account: string, address: string | undefined): Promise<void> {
  const now = deps.now();
  const trusted = { failures: 0, locked_until: 0, last_at: now, trusted_until: now + TRUST_MS };
  await deps.db
    .insertInto('login_failures')
    .values({ account, address: addressKey(address), ...trusted })
    .onConflict((oc) => oc.columns(['account', 'address']).doUpdateSet(trusted))
    .execute();
}

/** Rows whose count is forgotten and whose lock is over (the periodic sweep calls this). */
export async function forgetOldFailures(deps: Deps): Promise<void> {
  const now = deps.now();
  await deps.db
    .deleteFrom('login_failures')
    .where('last_at', '<', now - deps.config.lockout.forgetAfterS * 1000)
    .where('locked_until', '<', now)
    .where('trusted_until', '<', now)
    .execute();
}
