import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { Limits } from '@loupe/contracts';
import { AppError, fail } from '../../errors.js';
import type { ReceivedFile } from '../gallery/receive.js';

export interface ZipLimits {
  maxUncompressed: number;
  maxEntry: number;
  maxEntries: number;
}

export interface ZipText {
  /** Path inside the ZIP, forward slashes. */
  path: string;
  data: Buffer;
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/** What to do with an entry: read it into memory (an annotation file), stream it to a temp file (an image), or pass. */
export type EntryUse = 'text' | 'file' | null;

/** Streams an image entry to a temp file as the gallery's upload does (hash, size and head kept on the way). */
export interface FileSink {
  /** A fresh temp path (the blob store's temp folder). */
  tempPath(): string;
  /** Each image entry, once written; `name` is its path in the ZIP. Removing the temp file is the callee's. */
  onFile(file: ReceivedFile): Promise<void>;
  /** Largest image accepted; a bigger entry is handed on as tooLarge without its bytes. */
  maxFileBytes: number;
}

const HEAD_BYTES = 65_536;

/** Zip slip: absolute paths, drive letters, `..` segments; links are refused by their mode bits. */
export function unsafeEntry(entry: Entry): boolean {
  const name = entry.fileName.replace(/\\/g, '/');
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) return true;
  if (name.split('/').some((p) => p === '..')) return true;
  const madeBy = entry.versionMadeBy >> 8;
  const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
  return madeBy === 3 && mode === S_IFLNK;
}

/** yauzl's own refusals, in catalogue terms: unsafe names, and entries inflating past their declared size. */
function fromYauzl(e: unknown): AppError {
  const msg = e instanceof Error ? e.message : String(e);
  const name = /^(?:absolute path|invalid relative path|invalid characters in fileName): (.*)$/.exec(msg);
  if (name) return new AppError('zipUnsafeEntry', { entry: name[1]! });
  if (/too many bytes in the stream|exceeds the declared/i.test(msg)) return new AppError('zipTooLarge');
  return new AppError('zipInvalid');
}

const open = (file: string) =>
  new Promise<ZipFile>((resolve, reject) =>
    // yauzl's own checks (validateEntrySizes, decodeStrings) stay on; it also refuses some unsafe names.
    yauzl.open(file, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false }, (err, zip) => (err ? reject(err) : resolve(zip))),
  );

/**
 * Streams the entries `wanted` picks out of a ZIP on disk to `onEntry`, one after the other, refusing unsafe
 * names, links and archives that unpack bigger than the limits: the entry count (from the central directory, before any entry is read) and
 * declared sizes are checked first, and bytes are counted again while inflating, because the declared sizes
 * are whatever the archive's author wrote. A wanted entry (an annotation file, held in memory and parsed)
 * may inflate to at most Limits.annotationFileMaxBytes, all of them together to annotationFilesMaxBytes:
 * an inflating stream is stopped at the first chunk past either, so a ZIP bomb costs a few MB, not GBs.
 */
export async function readZip(
  file: string,
  limits: ZipLimits,
  wanted: (path: string) => boolean | EntryUse,
  onEntry: (entry: ZipText) => Promise<void>,
  sink?: FileSink,
): Promise<void> {
  let zip: ZipFile;
  try {
    zip = await open(file);
  } catch {
    fail('zipInvalid');
  }
  let declared = 0;
  let inflated = 0;
  const fileMax = Limits.annotationFileMaxBytes;
  const tooBig = (entry: string) => new AppError('annotationFileTooLarge', { entry, max: Math.round(fileMax / 2 ** 20) });
  try {
    if (zip.entryCount > limits.maxEntries) fail('zipTooManyEntries', { max: limits.maxEntries });
    await new Promise<void>((resolve, reject) => {
      zip.on('error', reject);
      zip.on('end', resolve);
      zip.on('entry', (entry: Entry) => {
        if (unsafeEntry(entry)) return reject(new AppError('zipUnsafeEntry', { entry: entry.fileName }));
        if (entry.fileName.endsWith('/')) return zip.readEntry();
        declared += entry.uncompressedSize;
        if (entry.uncompressedSize > limits.maxEntry || declared > limits.maxUncompressed) return reject(new AppError('zipTooLarge'));
        const path = entry.fileName.replace(/\\/g, '/');
        const use = wanted(path);
        if (!use) return zip.readEntry();
        if (use === 'file') {
          if (!sink) return zip.readEntry();
          if (entry.uncompressedSize > sink.maxFileBytes) {
            const skipped = { name: path, tempFile: '', bytes: entry.uncompressedSize, sha: '', head: Buffer.alloc(0), tooLarge: true };
            return void sink.onFile(skipped).then(() => zip.readEntry(), reject);
          }
          return zip.openReadStream(entry, (err, stream) => {
            if (err) return reject(err);
            void toTemp(stream, path, sink, entry.uncompressedSize)
              .then((f) => sink.onFile(f))
              .then(() => zip.readEntry(), reject);
          });
        }
        if (entry.uncompressedSize > fileMax) return reject(tooBig(path));
        zip.openReadStream(entry, (err, stream) => {
          if (err) return reject(err);
          const chunks: Buffer[] = [];
          let size = 0;
          stream.on('data', (chunk: Buffer) => {
            size += chunk.length;
            inflated += chunk.length;
            const problem =
              size > fileMax ? tooBig(path) : size > limits.maxEntry || inflated > Math.min(limits.maxUncompressed, Limits.annotationFilesMaxBytes) ? new AppError('zipTooLarge') : null;
            if (problem) {
              stream.destroy();
              return reject(problem);
            }
            chunks.push(chunk);
          });
          stream.on('error', reject);
          // One entry at a time: the next is inflated once this one is parsed (and its bytes can go).
          stream.on('end', () => onEntry({ path, data: Buffer.concat(chunks) }).then(() => zip.readEntry(), reject));
        });
      });
      zip.readEntry();
    });
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw fromYauzl(e);
  } finally {
    zip.close();
  }
}

/** One image entry to a temp file; yauzl's validateEntrySizes stops a stream that inflates past its declared size. */
async function toTemp(stream: NodeJS.ReadableStream, name: string, sink: FileSink, declared: number): Promise<ReceivedFile> {
  if (declared === 0) return { name, tempFile: '', bytes: 0, sha: '', head: Buffer.alloc(0), tooLarge: false };
  const tempFile = sink.tempPath();
  const out = fs.createWriteStream(tempFile);
  const hash = createHash('sha256');
  const head: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (bytes < HEAD_BYTES) head.push(chunk);
      bytes += chunk.length;
      hash.update(chunk);
      if (!out.write(chunk)) await once(out, 'drain');
    }
  } catch (e) {
    out.destroy();
    await fs.promises.rm(tempFile, { force: true });
    throw e;
  }
  out.end();
  await finished(out);
  return { name, tempFile, bytes, sha: hash.digest('hex'), head: Buffer.concat(head).subarray(0, HEAD_BYTES), tooLarge: false };
}
