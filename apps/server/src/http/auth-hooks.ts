import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { Headers, Roles } from '@loupe/contracts';
import { fail } from '../errors.js';
import type { Deps } from '../services/deps.js';
import { authenticate, type Authenticated } from '../services/sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    auth: Authenticated | null;
  }
}

/**
 * How a route may be signed in. The X-Token header always; besides it:
 * - `query`: the `token` query parameter, only where SPEC §7 names it (GET user/info). A token in a URL ends up
 *   in browser history, Referer headers and proxy logs, so every other route treats it as not signed in.
 * - `cookie`: the files cookie, only on GET routes that answer bytes to <img src> and download links, which
 *   cannot send headers. The cookie is HttpOnly, SameSite=Strict and Secure over TLS; it is set by any API
 *   answer to a header-authenticated call (see installFilesCookie), so a page that has listed images can show
 *   them. Chosen over signed URLs: image URLs stay stable, so the immutable browser cache and the annotator's
 *   prefetch keep working, and no URL ever carries a credential, even a short-lived one.
 */
export interface SignIn {
  query?: boolean;
  cookie?: boolean;
}

export const FILES_COOKIE = 'loupe_files';
const FILES_COOKIE_PATH = '/api';

/** The token a request was signed in with, kept for installFilesCookie (never logged, never sent back). */
const signedInWith = new WeakMap<FastifyRequest, { token: string; via: 'header' | 'query' | 'cookie' }>();

function headerToken(req: FastifyRequest): string | undefined {
  const header = req.headers[Headers.token.toLowerCase()];
  const value = Array.isArray(header) ? header[0] : header;
  return value || undefined;
}

function queryToken(req: FastifyRequest): string | undefined {
  const query = req.query as Record<string, unknown> | undefined;
  return typeof query?.token === 'string' && query.token ? query.token : undefined;
}

function cookieToken(req: FastifyRequest): string | undefined {
  return req.cookies?.[FILES_COOKIE] || undefined;
}

/** The session token of the X-Token header, the only way most routes are signed in. */
export function tokenOf(req: FastifyRequest): string | undefined {
  return headerToken(req);
}

function pick(req: FastifyRequest, ways: SignIn): { token: string; via: 'header' | 'query' | 'cookie' } | undefined {
  const header = headerToken(req);
  if (header) return { token: header, via: 'header' };
  const query = ways.query ? queryToken(req) : undefined;
  if (query) return { token: query, via: 'query' };
  const cookie = ways.cookie && req.method === 'GET' ? cookieToken(req) : undefined;
  if (cookie) return { token: cookie, via: 'cookie' };
  return undefined;
}

async function signIn(deps: Deps, req: FastifyRequest, ways: SignIn): Promise<Authenticated> {
  const chosen = pick(req, ways);
  const auth = await authenticate(deps, chosen?.token);
  signedInWith.set(req, chosen!);
  return auth;
}

export function requireUser(deps: Deps, ways: SignIn = {}): preHandlerAsyncHookHandler {
  return async (req: FastifyRequest, _reply: FastifyReply) => {
    req.auth = await signIn(deps, req, ways);
  };
}

export function requireAdmin(deps: Deps, ways: SignIn = {}): preHandlerAsyncHookHandler {
  return async (req: FastifyRequest, _reply: FastifyReply) => {
    req.auth = await signIn(deps, req, ways);
    if (req.auth.user.role !== Roles.admin) fail('forbidden');
  };
}

/** The signed-in user of a route behind requireUser/requireAdmin. */
export function userOf(req: FastifyRequest) {
  if (!req.auth) fail('sessionInvalid');
  return req.auth.user;
}

function cookieOptions(req: FastifyRequest) {
  return { path: FILES_COOKIE_PATH, httpOnly: true, sameSite: 'strict' as const, secure: req.protocol === 'https' };
}

/**
 * Keeps the files cookie equal to the session the web app uses: an answer to a call signed in by header (or by
 * user/info's query token) sets it when the browser's copy differs. A new sign-in therefore replaces it on
 * the next call, and a session that ends makes it worthless at once (it is checked like the header).
 */
export function installFilesCookie(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    const used = req.auth ? signedInWith.get(req) : undefined;
    if (used && used.via !== 'cookie' && cookieToken(req) !== used.token) {
      reply.setCookie(FILES_COOKIE, used.token, cookieOptions(req));
    }
    return payload;
  });
}

/** On sign-out: the browser forgets the files cookie. */
export function clearFilesCookie(req: FastifyRequest, reply: FastifyReply): void {
  if (cookieToken(req)) reply.clearCookie(FILES_COOKIE, cookieOptions(req));
}
