import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { Limits, type ErrorName, type ImageKind } from '@loupe/contracts';
import type { ErrorVars } from '../../errors.js';
import type { Deps } from '../deps.js';
import { dimensions, sniffKind, thumbnail } from './probe.js';
import type { ReceivedFile } from './receive.js';

export interface Checked {
  file: ReceivedFile;
  kind: ImageKind;
  width: number;
  height: number;
  thumbSha: string;
}

export interface Refusal {
  key: ErrorName;
  vars?: ErrorVars;
}

/**
 * SPEC §5 image rules in order of cost: size, type from the magic numbers, dimensions from the header
 * (aspect ratio, side limits, pixel count), then a full decode (the thumbnail), which catches corrupt files.
 * An accepted file's bytes and thumbnail are moved into the blob store; `written` collects the blobs this
 * call created so that a failed request can take them back.
 */
export async function checkImage(deps: Deps, modelId: number, file: ReceivedFile, written: string[]): Promise<Checked | Refusal> {
  const { minSidePx, maxSidePx } = deps.config.gallery;
  if (file.tooLarge) return { key: 'imageTooLarge' };
  try {
    if (file.bytes === 0) return { key: 'fileCheckFailed' };
    // Bytes the model already holds need no decoding: a retried file is answered at once.
    if ((await deps.images.hashesTaken(modelId, [file.sha])).size > 0) return { key: 'duplicateImage' };
    const head = file.head;
    const kind = sniffKind(head);
    if (!kind) return { key: 'onlyImageTypes' };
    let size: { width: number; height: number };
    try {
      size = await dimensions(file.tempFile, kind, head);
    } catch {
      return { key: 'fileCheckFailed' };
    }
    const { width, height } = size;
    if (!(width > 0 && height > 0)) return { key: 'fileCheckFailed' };
    if (Math.max(width, height) / Math.min(width, height) >= Limits.aspectRatioMax) {
      return { key: 'aspectRatio', vars: { max: Limits.aspectRatioMax } };
    }
    if (Math.min(width, height) < minSidePx || Math.max(width, height) > maxSidePx) {
      return { key: 'resolutionOutOfRange', vars: { min: minSidePx, max: maxSidePx } };
    }
    // Decompression bombs: a few KB can claim gigapixels; refused from the header, before any decoding.
    if (width * height > Limits.imageMaxPixels) {
      return { key: 'imageTooManyPixels', vars: { width, height, max: Limits.imageMaxPixels / 1e6 } };
    }
    let thumb: Buffer;
    try {
      thumb = await thumbnail(file.tempFile, kind, head, file.bytes);
    } catch {
      return { key: 'fileCheckFailed' };
    }
    const thumbSha = createHash('sha256').update(thumb).digest('hex');
    if (await deps.blobs.putBuffer(thumbSha, thumb)) written.push(thumbSha);
    if (await deps.blobs.putFile(file.sha, file.tempFile)) written.push(file.sha);
    return { file, kind, width, height, thumbSha };
  } finally {
    if (file.bytes > 0 && !file.tooLarge) await fs.promises.rm(file.tempFile, { force: true });
  }
}

export const isRefusal = (r: Checked | Refusal): r is Refusal => 'key' in r;
