import type { IncomingMessage } from 'node:http';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { Busboy, type BusboyConfig } from '@fastify/busboy';

/** One file part of a multipart body: read `file` to its end (or `resume()` it) before asking for the next. */
export interface FilePart {
  fieldname: string;
  /** As sent; with `preservePath` a relative `<folder>/<file>` path. */
  filename: string;
  /** `truncated` is set once the part went over `limits.fileSize`; the rest of it was skipped. */
  file: Readable & { truncated?: boolean };
}

export interface PartLimits {
  fileSize: number;
  files: number;
  parts: number;
  fields: number;
}

/** The body had more files, parts or fields than its limits allow. */
export class PartLimitError extends Error {
  constructor(readonly limit: 'files' | 'parts' | 'fields') {
    super(`multipart ${limit} limit reached`);
  }
}

/** Most bytes handed to the parser in one turn of the event loop. */
const SLICE_BYTES = 16 * 1024;
/** Most parts parsed ahead of the consumer; beyond it the body waits, and TCP slows the sender down. */
const QUEUE_MAX = 64;

/**
 * The file parts of a multipart request body, one at a time, parsed as the consumer asks for them.
 *
 * Why not `@fastify/multipart`'s `req.parts()`: libuv reads up to 2 MB of a waiting socket in one turn of the
 * event loop and busboy parses all of it at once, so 10,000 empty parts (1.5 MB) held the server for 200 ms on a
 * 2-core EPYC, and its queue of parsed parts is an array sliced on every take (quadratic in the parts
 * waiting). Here the body is fed to busboy in slices of 16 KB, one per turn, and not at all while 64 parts
 * wait to be taken, so a turn never parses more than a hundred or so parts, whatever the body holds.
 *
 * Throws a `PartLimitError` over the limits, and an `Error` when the request breaks off or is not
 * well-formed multipart, a body without its closing boundary included (every client sends one; a body cut
 * short does not). When the consumer stops early, the rest of the body is read and dropped.
 */
export async function* fileParts(raw: IncomingMessage, field: string, limits: PartLimits): AsyncGenerator<FilePart> {
  const queue: FilePart[] = [];
  let failure: Error | null = null;
  let done = false;
  // Set inside callbacks, so typed by assertion: TypeScript would otherwise narrow them to null for good.
  let wakeConsumer = null as (() => void) | null;
  let wakeFeeder = null as (() => void) | null;
  const wake = (): void => {
    wakeConsumer?.();
    wakeConsumer = null;
  };
  // The part the consumer is reading: when the request breaks off its stream would wait forever.
  let reading: Readable | null = null;
  const fail = (e: Error): void => {
    failure ??= e;
    wake();
    if (reading && !reading.readableEnded) reading.destroy(failure);
  };

  const bb = new Busboy({ headers: raw.headers as BusboyConfig['headers'], limits, preservePath: true });
  bb.on('file', (fieldname: string, file: Readable, filename: string | undefined) => {
    // Another field's file is skipped; so is every part once the consumer has an error to see.
    if (fieldname !== field || failure) {
      file.on('error', () => undefined);
      file.resume();
      return;
    }
    // A part cut off by the end of the body fails the request (and must not be an unheard 'error' event).
    file.on('error', fail);
    queue.push({ fieldname, filename: filename ?? '', file });
    wake();
  });
  bb.on('field', () => undefined);
  bb.on('filesLimit', () => fail(new PartLimitError('files')));
  bb.on('partsLimit', () => fail(new PartLimitError('parts')));
  bb.on('fieldsLimit', () => fail(new PartLimitError('fields')));
  // Among them 'Unexpected end of multipart data': a body without its closing boundary was cut off.
  bb.on('error', fail);
  bb.on('finish', () => {
    done = true;
    wake();
  });
  const onClose = (): void => {
    if (!raw.complete) fail(new Error('the request broke off'));
  };
  raw.on('close', onClose);
  raw.on('error', fail);

  const feeder = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      void (async () => {
        for (let at = 0; at < chunk.length; at += SLICE_BYTES) {
          while (queue.length >= QUEUE_MAX && !failure) await new Promise<void>((resolve) => (wakeFeeder = resolve));
          if (failure) break;
          this.push(chunk.subarray(at, at + SLICE_BYTES));
          if (at + SLICE_BYTES < chunk.length) await new Promise<void>((resolve) => setImmediate(resolve));
        }
        // The next chunk, if any, in a later turn as well.
        setImmediate(callback);
      })();
    },
  });
  raw.pipe(feeder).pipe(bb);

  try {
    for (;;) {
      if (failure) throw failure;
      const part = queue.shift();
      if (part) {
        if (queue.length < QUEUE_MAX) {
          wakeFeeder?.();
          wakeFeeder = null;
        }
        reading = part.file;
        yield part;
        reading = null;
        continue;
      }
      if (done) return;
      await new Promise<void>((resolve) => (wakeConsumer = resolve));
    }
  } finally {
    failure ??= new Error('the consumer stopped');
    wakeFeeder?.();
    raw.off('close', onClose);
    raw.off('error', fail);
    raw.unpipe(feeder);
    feeder.unpipe(bb);
    for (const p of queue.splice(0)) p.file.resume();
    // Drop what is left of the body, so that the answer can be read by a client still sending.
    raw.resume();
  }
}
