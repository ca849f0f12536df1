import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import '@fastify/multipart';
import { Limits } from '@loupe/contracts';
import { AppError, fail } from '../../errors.js';
import type { Deps } from '../deps.js';
import { breathe } from './breathe.js';
import { fileParts, PartLimitError } from './multipart.js';

export interface ReceivedFile {
  /** The part's filename as sent (for folder uploads a relative path). */
  name: string;
  /** Where the bytes are; '' when `bytes` is 0 (empty parts are never written). */
  tempFile: string;
  bytes: number;
  sha: string;
  /** The first bytes (magic numbers, headers), kept while streaming so nobody reopens the file for them. */
  head: Buffer;
  /** Over the per-image limit: the rest of the part was skipped and the temp file removed. */
  tooLarge: boolean;
}

/** Multipart framing per file is small; this much over the total limit is still worth reading. */
const FRAMING_SLACK = 1024 * 1024;
const HEAD_BYTES = 65_536;

/**
 * Streams each file part of the request to a temp file (never the whole upload in memory), hashing and
 * counting as it goes, and hands every finished file to `onFile` while the next one is still arriving.
 * Over the total limit, or when the request breaks off, every temp file is removed and the call throws.
 */
export async function receiveFiles(
  deps: Deps,
  req: FastifyRequest,
  field: string,
  onFile: (file: ReceivedFile) => Promise<void> | void,
  maxFileBytes = deps.config.gallery.imageMaxBytes,
): Promise<number> {
  const { uploadMaxBytes } = deps.config.gallery;
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > uploadMaxBytes + FRAMING_SLACK) fail('uploadTooLarge');
  if (!req.isMultipart()) fail('uploadFailed');
  let total = 0;
  let count = 0;
  const temps: string[] = [];
  try {
    // An oversized file is refused alone (truncated) instead of failing the request. The part and file counts
    // are bounded so that one request cannot keep the server busy with thousands of (empty) parts.
    const limits = { fileSize: maxFileBytes, files: Limits.uploadMaxFiles, parts: Limits.uploadMaxFiles + 100, fields: 100 };
    for await (const part of fileParts(req.raw, field, limits)) {
      // Thousands of small parts resolve as microtasks: give the loop back now and then.
      await breathe();
      let tempFile = '';
      const hash = createHash('sha256');
      let bytes = 0;
      const head: Buffer[] = [];
      // Named and opened at the first byte: an empty part costs no file (no open, close or remove) at all.
      let out: fs.WriteStream | null = null;
      try {
        // A plain loop, not stream.pipeline: a part cut off by the end of the request then throws
        // (premature close) instead of leaving the pipeline waiting forever.
        for await (const chunk of part.file as AsyncIterable<Buffer>) {
          if (!out) {
            tempFile = deps.blobs.tempPath();
            temps.push(tempFile);
            out = fs.createWriteStream(tempFile);
          }
          bytes += chunk.length;
          total += chunk.length;
          if (total > uploadMaxBytes) fail('uploadTooLarge');
          hash.update(chunk);
          if (bytes - chunk.length < HEAD_BYTES) head.push(chunk);
          if (!out.write(chunk)) await once(out, 'drain');
        }
      } finally {
        if (out) {
          out.end();
          await finished(out).catch(() => undefined);
        }
      }
      const tooLarge = part.file.truncated === true;
      if (tooLarge && out) await fs.promises.rm(tempFile, { force: true });
      count += 1;
      await onFile({ name: part.filename, tempFile, bytes, sha: hash.digest('hex'), head: Buffer.concat(head).subarray(0, HEAD_BYTES), tooLarge });
    }
  } catch (e) {
    await Promise.all(temps.map((t) => fs.promises.rm(t, { force: true })));
    if (e instanceof AppError) throw e;
    if (e instanceof PartLimitError) fail('uploadTooManyFiles', { max: Limits.uploadMaxFiles });
    deps.log.warn(`upload broke off: ${String(e)}`);
    fail('uploadFailed');
  }
  return count;
}
