import type { FastifyReply, FastifyRequest } from 'fastify';
import { Headers } from '@loupe/contracts';
import { attachment, BlobNotFound } from '../adapters/blob-store.js';
import { fail } from '../errors.js';
import type { Deps } from '../services/deps.js';

/** What to send: the blob, its content type, a download name (an attachment) or none (shown inline). */
export interface BlobAnswer {
  sha: string;
  contentType: string;
  filename?: string;
  /** Bytes, when known: sent as content-length so a browser shows a download's progress. */
  bytes?: number;
  /** cache-control of the streamed answer. */
  cacheControl: string;
  /** An ETag for the streamed answer (the bytes of a content-addressed blob never change). */
  etag?: string;
}

/**
 * Whether this request may be answered with a redirect to the blob store's signed URL (issue 34: browsers fetch
 * blobs from storage, with no session token in any URL). Only loads whose bytes the page cannot read anyway:
 * navigations and downloads (Sec-Fetch-Mode navigate) and <img>/<image> elements (no-cors). A script's fetch()
 * (cors, same-origin) is streamed through the API: the labeling canvas decodes the original with fetch +
 * createImageBitmap, which would need CORS on the bucket after a cross-origin redirect. A request that carries
 * X-Token is never redirected, as the header would follow the redirect to the storage host. Without Fetch
 * Metadata (API clients, older browsers) the API streams, as before.
 */
export function mayRedirect(req: FastifyRequest): boolean {
  if (req.headers[Headers.token.toLowerCase()] !== undefined) return false;
  const mode = req.headers['sec-fetch-mode'];
  return mode === 'navigate' || mode === 'no-cors';
}

/** How long a signed URL is handed out for (config.storage.signedUrlTtlS, default 300 s). */
export function signedUrlTtlS(deps: Deps): number {
  return deps.config.storage.signedUrlTtlS;
}

/**
 * Answers a blob the caller may read (checked before): a 302 to the store's signed URL when the store has
 * one and the request may follow it (mayRedirect), else the bytes streamed from the store. The redirect is
 * cached a little less than the URL stays valid, so a cached redirect never points at an expired URL.
 */
export async function sendBlob(deps: Deps, req: FastifyRequest, reply: FastifyReply, blob: BlobAnswer): Promise<FastifyReply> {
  // The same URL answers a redirect or the bytes depending on these headers: caches must keep them apart.
  void reply.header('vary', `sec-fetch-mode, ${Headers.token}`);
  if (mayRedirect(req)) {
    const ttl = signedUrlTtlS(deps);
    const url = await deps.blobs.signedUrl(blob.sha, { contentType: blob.contentType, filename: blob.filename, expiresS: ttl });
    if (url) {
      return reply
        .header('cache-control', `private, max-age=${Math.max(0, Math.floor(ttl * 0.9))}`)
        .redirect(url, 302);
    }
  }
  let stream;
  try {
    stream = await deps.blobs.open(blob.sha);
  } catch (e) {
    // Deleted since the caller's rows were read (or a store that lost it): the same answer as an unknown id.
    if (e instanceof BlobNotFound) fail('notFound');
    throw e;
  }
  void reply.type(blob.contentType).header('cache-control', blob.cacheControl);
  if (blob.filename !== undefined) void reply.header('content-disposition', attachment(blob.filename));
  if (blob.bytes !== undefined) void reply.header('content-length', String(blob.bytes));
  if (blob.etag !== undefined) void reply.header('etag', blob.etag);
  return reply.send(stream);
}
