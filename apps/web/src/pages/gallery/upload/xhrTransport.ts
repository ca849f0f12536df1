import { Headers as HeaderNames, RELOGIN_CODES, type UploadData } from '@loupe/contracts';
import i18n, { currentLanguage } from '@/i18n';
import { ApiError } from '@/api/errors';
import { react } from '@/api/reactions';
import { getSession } from '@/stores/session';
import type { FileOutcome, Transport } from './queue';

/** A multipart POST through XMLHttpRequest: fetch cannot report upload progress. */
export function xhrPost<T>(
  url: string,
  body: FormData,
  onProgress: (loaded: number) => void,
  signal?: AbortSignal,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.setRequestHeader(HeaderNames.language, currentLanguage());
    const token = getSession().token;
    if (token) xhr.setRequestHeader(HeaderNames.token, token);
    xhr.upload.onprogress = (event) => onProgress(event.loaded);
    xhr.onerror = () => reject(new ApiError(-1, i18n.t('common:errors.network')));
    xhr.onabort = () => reject(new ApiError(-1, i18n.t('gallery:upload.cancelled')));
    xhr.onload = () => {
      let envelope: { code?: number; message?: string; data?: unknown } = {};
      try {
        envelope = JSON.parse(xhr.responseText) as typeof envelope;
      } catch {
        // A proxy page instead of an envelope: reported with the generic message below.
      }
      if (envelope.code === 0) return resolve(envelope.data as T);
      const error = new ApiError(envelope.code ?? xhr.status, envelope.message || i18n.t('common:errors.badResponse'), envelope.data);
      // Same §8 rule as the client: a session that ended elsewhere opens the relogin dialog even mid-upload.
      if (RELOGIN_CODES.includes(error.code)) react(error);
      reject(error);
    };
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(body);
  });
}

/**
 * Outcomes in request order. The server answers one result per part; it is matched by position, falling back
 * to the name when counts differ (a part the server could not read at all).
 */
export function outcomesOf(data: UploadData, names: readonly string[]): FileOutcome[] {
  const byName = new Map(data.results.map((r) => [r.name, r]));
  return names.map((name, index) => {
    const result = data.results.length === names.length ? data.results[index] : byName.get(name);
    if (!result) return { ok: false, reason: i18n.t('gallery:upload.noAnswer') };
    return result.status === 'accepted' ? { ok: true } : { ok: false, reason: result.message ?? '' };
  });
}

/** The transport for image uploads: `field` parts, each named by `nameOf` (folders send `<label>/<file>`). */
export function imageTransport(url: string, field: string, nameOf: (file: File) => string = (f) => f.name): Transport {
  return async (files, onProgress, signal) => {
    const body = new FormData();
    const names = files.map(nameOf);
    files.forEach((file, i) => body.append(field, file, names[i]));
    const data = await xhrPost<UploadData>(url, body, onProgress, signal);
    return outcomesOf(data, names);
  };
}
