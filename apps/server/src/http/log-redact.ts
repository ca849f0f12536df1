import type { FastifyRequest } from 'fastify';

/** Query parameters that carry a credential: session tokens, one-time codes, passwords, signatures. */
const SECRET_PARAMS = new Set(['token', 'code', 'password', 'signature', 'sig', 'state', 'access_token', 'id_token']);
export const REDACTED = '[redacted]';

/** The URL with the value of every secret query parameter replaced; path and other parameters stay readable. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url.slice(q + 1).split('&').map((part) => {
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    let name = rawName;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '));
    } catch {
      // A malformed escape: judged by its raw spelling.
    }
    return SECRET_PARAMS.has(name.toLowerCase()) ? `${rawName}=${REDACTED}` : part;
  });
  return `${url.slice(0, q)}?${query.join('&')}`;
}

/**
 * The logger's `req` serializer (Fastify logs every incoming request with it): method, redacted URL, host and
 * address. No header is logged, so X-Token, Authorization and Cookie never reach the log.
 */
export function reqSerializer(req: FastifyRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}
