import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { Headers, Roles } from '@loupe/contracts';
import { fail } from '../errors.js';
import type { Deps } from '../services/deps.js';
import { authenticate, type Authenticated } from '../services/sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    auth: Authenticated | null;
  }
}

/** The session token: X-Token header, else the `token` query parameter (SPEC §7 user/info). */
export function tokenOf(req: FastifyRequest): string | undefined {
  const header = req.headers[Headers.token.toLowerCase()];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (fromHeader) return fromHeader;
  const query = req.query as Record<string, unknown> | undefined;
  return typeof query?.token === 'string' && query.token ? query.token : undefined;
}

export function requireUser(deps: Deps): preHandlerAsyncHookHandler {
  return async (req: FastifyRequest, _reply: FastifyReply) => {
    req.auth = await authenticate(deps, tokenOf(req));
  };
}

export function requireAdmin(deps: Deps): preHandlerAsyncHookHandler {
  return async (req: FastifyRequest, _reply: FastifyReply) => {
    req.auth = await authenticate(deps, tokenOf(req));
    if (req.auth.user.role !== Roles.admin) fail('forbidden');
  };
}

/** The signed-in user of a route behind requireUser/requireAdmin. */
export function userOf(req: FastifyRequest) {
  if (!req.auth) fail('sessionInvalid');
  return req.auth.user;
}
