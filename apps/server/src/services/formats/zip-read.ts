import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { Limits } from '@loupe/contracts';
import { AppError, fail } from '../../errors.js';

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
export async function readZip(file: string, limits: ZipLimits, wanted: (path: string) => boolean, onEntry: (entry: ZipText) => Promise<void>): Promise<void> {
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
        if (!wanted(path)) return zip.readEntry();
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
