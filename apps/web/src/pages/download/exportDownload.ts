import { DatasetPaths, Headers as HeaderNames, type ExportFormat, type Split } from '@loupe/contracts';
import i18n, { currentLanguage } from '@/i18n';
import { ApiError } from '@/api/errors';
import { react } from '@/api/reactions';
import { pathOf } from '@/pages/gallery/galleryApi';
import { getSession } from '@/stores/session';

/** The export URL for a format and an optional split (contracts: ExportQuery). */
export function exportUrl(modelId: string, format: ExportFormat, split?: Split): string {
  const query = new URLSearchParams({ format });
  if (split) query.set('split', split);
  return `${pathOf(DatasetPaths.exportImages, { modelId })}?${query.toString()}`;
}

/**
 * Download a file of the API (a dataset ZIP, a model pack). A refusal (no permission, nothing to export) comes back
 * as a JSON envelope, so the request is first opened here to read its headers: an envelope is shown like any
 * refused call; a file is abandoned and handed to the browser through a link, which streams it to disk instead of
 * into memory. The link carries no token: the HttpOnly files cookie (set by this very answer if not before) signs
 * it in, and where blobs live in S3 the server answers the link with a short-lived signed URL to the bucket.
 */
export async function downloadFile(url: string): Promise<void> {
  const controller = new AbortController();
  const headers: Record<string, string> = { [HeaderNames.language]: currentLanguage() };
  const token = getSession().token;
  if (token) headers[HeaderNames.token] = token;
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: controller.signal });
  } catch {
    throw new ApiError(-1, i18n.t('common:errors.network'));
  }
  if ((res.headers.get('content-type') ?? '').includes('application/json')) {
    const envelope = (await res.json().catch(() => ({}))) as { code?: number; message?: string; data?: unknown };
    const error = new ApiError(envelope.code ?? res.status, envelope.message || i18n.t('common:errors.badResponse'), envelope.data);
    // Same reactions as the client: relogin dialog, contact sales…; plain refusals come back to the page.
    throw react(error);
  }
  controller.abort();
  const link = document.createElement('a');
  link.href = url;
  link.download = '';
  link.rel = 'noopener';
  document.body.appendChild(link);
  link.click();
  link.remove();
}
