import * as client from 'openid-client';
import { Errors, NAME_FORBIDDEN_CHARS, Roles, type ErrorName, type Language } from '@loupe/contracts';
import { AppError } from '../errors.js';
import type { User } from '../db/users.js';
import type { Deps } from './deps.js';
import { assertCanSignIn } from './registration.js';
import { startSession } from './sessions.js';
import { randomToken, sha256 } from './crypto.js';

const hiddenChars = new RegExp(NAME_FORBIDDEN_CHARS, 'gu');

/**
 * OpenID Connect sign-in (the sign-in page's "Google" option, any provider): authorization code flow with
 * state, nonce and PKCE. Accounts are found or created by verified email; new ones wait for review.
 */
const STATE_TTL_MS = 10 * 60 * 1000;
/** The landing's one-time code: long enough for a slow page load, too short to be useful from a history or log. */
export const LANDING_CODE_TTL_S = 60;

type Claims = client.IDToken & Partial<client.UserInfoResponse>;

export const oidcCallbackPath = '/api/auth/oidc/callback';

export interface OidcService {
  /** The provider's authorization URL and the state to bind to the browser. */
  start(): Promise<{ url: string; state: string }>;
  /** Where to send the browser: /logging?code=<one-time code> or /signin?error=<code>. Never a session token. */
  finish(callbackUrl: URL, browserState: string | undefined, lang: Language): Promise<string>;
}

export function oidcService(deps: Deps): OidcService | null {
  const settings = deps.config.oidc;
  if (!settings) return null;
  const redirectUri = `${deps.config.publicUrl}${oidcCallbackPath}`;
  let discovered: Promise<client.Configuration> | null = null;

  const configuration = (): Promise<client.Configuration> => {
    discovered ??= client
      .discovery(new URL(settings.issuer), settings.clientId, settings.clientSecret, undefined, {
        // A provider on plain http is only plausible on a private network or in tests.
        execute: new URL(settings.issuer).protocol === 'http:' ? [client.allowInsecureRequests] : [],
        timeout: 10,
      })
      .catch((err: unknown) => {
        discovered = null; // try again on the next sign-in rather than caching the failure
        throw err;
      });
    return discovered;
  };

  const errorRedirect = (name: ErrorName) => `/signin?error=${Errors[name].code}`;

  return {
    async start() {
      const config = await configuration();
      const state = client.randomState();
      const nonce = client.randomNonce();
      const verifier = client.randomPKCECodeVerifier();
      const now = deps.now();
      await deps.oidcStates.removeOlderThan(now - STATE_TTL_MS);
      await deps.oidcStates.put({ state, nonce, code_verifier: verifier, created_at: now });
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        state,
        nonce,
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, state };
    },

    async finish(callbackUrl, browserState, lang) {
      const state = callbackUrl.searchParams.get('state') ?? '';
      const saved = state ? await deps.oidcStates.take(state) : undefined;
      if (!saved || saved.state !== browserState || saved.created_at < deps.now() - STATE_TTL_MS) {
        return errorRedirect('oidcFailed');
      }
      let claims: Claims | undefined;
      try {
        const config = await configuration();
        const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: saved.code_verifier,
          expectedState: saved.state,
          expectedNonce: saved.nonce,
          idTokenExpected: true,
        });
        const idToken = tokens.claims();
        claims = idToken;
        // Providers that follow OIDC strictly put profile and email claims only in userinfo.
        if (idToken && typeof idToken.email !== 'string') {
          claims = { ...idToken, ...(await client.fetchUserInfo(config, tokens.access_token, idToken.sub)) };
        }
      } catch (err) {
        deps.log.warn(`OIDC sign-in failed: ${String(err)}`);
        return errorRedirect('oidcFailed');
      }
      const email = typeof claims?.email === 'string' ? claims.email.trim().toLowerCase() : '';
      if (!claims || !email || claims.email_verified !== true) return errorRedirect('oidcFailed');
      try {
        const user = await findOrCreate(deps, claims, email, lang);
        assertCanSignIn(deps, user);
        // The URL lands in history and maybe in logs: it carries a code that is spent on first use and dies in a
        // minute; the session starts only when the web app exchanges it by POST (exchangeLandingCode).
        const code = randomToken();
        await deps.tokens.createToken(user.id, 'oidc', sha256(code), deps.now(), LANDING_CODE_TTL_S);
        return `/logging?code=${encodeURIComponent(code)}`;
      } catch (err) {
        if (err instanceof AppError) return errorRedirect(err.key);
        throw err;
      }
    },
  };
}

/**
 * POST /api/auth/oidc/exchange: the landing's code for a session token. Unknown, used or expired codes are all
 * oidcFailed; the account is checked again, since a review may have changed it in between.
 */
export async function exchangeLandingCode(deps: Deps, code: string): Promise<string> {
  const row = code ? await deps.tokens.findToken('oidc', sha256(code)) : undefined;
  const now = deps.now();
  if (!row || row.used_at !== null || row.expires_at <= now) throw new AppError('oidcFailed');
  if (!(await deps.tokens.useToken(row.id, now))) throw new AppError('oidcFailed');
  const user = await deps.users.findById(row.user_id);
  if (!user) throw new AppError('oidcFailed');
  assertCanSignIn(deps, user);
  return startSession(deps, user);
}

async function findOrCreate(deps: Deps, claims: Claims, email: string, lang: Language): Promise<User> {
  const now = deps.now();
  const existing = (await deps.users.findByOidcSubject(`${claims.iss}|${claims.sub}`)) ?? (await deps.users.findByEmail(email));
  if (existing) {
    const patch: Partial<User> = {};
    if (!existing.oidc_subject) patch.oidc_subject = `${claims.iss}|${claims.sub}`;
    // The provider has verified the address, which is all activation proves.
    if (existing.status === 'unactivated') Object.assign(patch, { status: 'pending', activated_at: now });
    if (Object.keys(patch).length === 0) return existing;
    await deps.users.update(existing.id, { ...patch, updated_at: now });
    return { ...existing, ...patch };
  }
  // A provider's names are not typed here: invisible and reordering characters are dropped rather than refused.
  const text = (v: unknown) => (typeof v === 'string' ? v.replace(hiddenChars, '').trim().slice(0, 100) : '');
  const row = {
    email,
    password_hash: null,
    first_name: text(claims.given_name) || text(claims.name) || email.split('@')[0]!.slice(0, 100),
    last_name: text(claims.family_name),
    company: '',
    company_id: '',
    phone: null,
    landline: '',
    country: '',
    job_title: '',
    role: Roles.user,
    status: 'pending' as const,
    language: lang,
    training_priority: 0,
    download_permission: 0,
    oidc_subject: `${claims.iss}|${claims.sub}`,
    guides_seen: '',
    created_at: now,
    activated_at: now,
    updated_at: now,
  };
  const id = await deps.users.insert(row);
  return { ...row, id };
}
