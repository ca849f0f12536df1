import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

/**
 * The Content-Security-Policy of the API and of the built web app. No inline script anywhere (the built
 * index.html loads one module from /assets); Ant Design writes its CSS-in-JS into <style> elements, hence
 * 'unsafe-inline' for styles only; thumbnails and canvases use blob: and data: images; the annotator's scene
 * worker is a same-origin module. Nothing may frame the app (clickjacking).
 */
export const CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  scriptSrcAttr: ["'none'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:', 'blob:'],
  fontSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  workerSrc: ["'self'", 'blob:'],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  // Not upgrade-insecure-requests: a deployment on plain http (a factory LAN) would lose every request.
  upgradeInsecureRequests: null,
} as const;

/** HSTS tells browsers to come back over TLS only: sent only when this request came over TLS (or a trusted proxy says so). */
const HSTS = 'max-age=15552000; includeSubDomains';

/**
 * The directives for a deployment whose blob store hands browsers signed URLs on another origin (S3:
 * config.storage.publicOrigin): images, media and fetches may then load from it (http/blob-reply.ts redirects
 * there). null: the directives above, unchanged.
 */
export function cspDirectives(blobOrigin: string | null = null): Record<string, readonly string[] | null> {
  if (!blobOrigin) return CSP_DIRECTIVES;
  const origin = new URL(blobOrigin).origin;
  return {
    ...CSP_DIRECTIVES,
    imgSrc: [...CSP_DIRECTIVES.imgSrc, origin],
    mediaSrc: ["'self'", origin],
    connectSrc: [...CSP_DIRECTIVES.connectSrc, origin],
  };
}

/** helmet's headers for this configuration, computed once: they do not depend on the request. */
function helmetHeaders(blobOrigin: string | null): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  helmet({
    contentSecurityPolicy: { useDefaults: false, directives: cspDirectives(blobOrigin) },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: false,
    // Downloads open in the same origin; cross-origin embedding of our files is never needed.
    crossOriginResourcePolicy: { policy: 'same-origin' },
  })({} as IncomingMessage, res as unknown as ServerResponse, () => undefined);
  return headers;
}

/**
 * Security headers on every answer: API envelopes, errors, static files and the SPA fallback (this onRequest
 * hook runs before routing, rate limiting and the not-found handler). Register before anything that may answer
 * early. The headers are helmet's, computed once: @fastify/helmet built helmet's middleware anew for every
 * request, parsing the CSP each time (9% of the server's CPU under bench:api). `blobOrigin`: see cspDirectives.
 */
export function installSecurityHeaders(app: FastifyInstance, opts: { blobOrigin?: string | null } = {}): void {
  const headers = helmetHeaders(opts.blobOrigin ?? null);
  app.addHook('onRequest', async (req, reply) => {
    void reply.headers(headers);
    if (req.protocol === 'https') reply.header('strict-transport-security', HSTS);
  });
}

/**
 * swagger-ui's own page has inline scripts whose hashes the plugin puts into its CSP: kept, but it may not be
 * framed either, and it is not forced onto https.
 */
export function docsCsp(header: string): string {
  return header
    .replace(/frame-ancestors [^;]*;/, "frame-ancestors 'none';")
    .replace(/\s*upgrade-insecure-requests;?/, '');
}
