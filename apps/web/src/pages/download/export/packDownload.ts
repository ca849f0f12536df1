import { ExportPaths, Headers as HeaderNames, type PackStatusData } from '@loupe/contracts';
import i18n, { currentLanguage } from '@/i18n';
import { ApiError, NETWORK_ERROR_CODE } from '@/api/errors';
import { react } from '@/api/reactions';
import { pathOf } from '@/pages/gallery/galleryApi';
import { getSession } from '@/stores/session';

/**
 * Where a ready pack's file is (SPEC §7): its modelUrl when storage gives one, else the API's download route.
 * Only a same-origin URL gets the X-Token header: a storage URL on another host is signed by itself.
 */
export function packFileUrl(status: PackStatusData): { url: string; withToken: boolean } | null {
  if (status.packStatus !== 'success') return null;
  if (status.modelUrl) return { url: status.modelUrl, withToken: status.modelUrl.startsWith('/') };
  if (status.id === null || status.inputW === null || status.inputH === null) return null;
  return { url: pathOf(ExportPaths.download, { id: status.id, inputW: status.inputW, inputH: status.inputH }), withToken: true };
}

/** `filename*=UTF-8''…` first (RFC 6266), then `filename="…"`. */
export function fileNameOf(disposition: string | null): string | null {
  if (!disposition) return null;
  const star = /filename\*\s*=\s*(?:UTF-8'')?([^;]+)/i.exec(disposition);
  if (star?.[1]) {
    try {
      return decodeURIComponent(star[1].trim().replace(/^"|"$/g, ''));
    } catch {
      // A malformed escape: fall back to the plain parameter.
    }
  }
  const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/i.exec(disposition);
  return plain ? (plain[2] ?? plain[1]!).trim() : null;
}

function save(href: string, name: string): void {
  const link = document.createElement('a');
  link.href = href;
  link.download = name;
  link.rel = 'noopener';
  document.body.appendChild(link);
  link.click();
  link.remove();
}

/**
 * Download a ready pack as a file. The API route needs the X-Token header, which a plain link cannot send,
 * so the file is fetched into a blob and saved through an object URL. A refusal comes back as a JSON
 * envelope (8008 no permission, packNotReady): it gets the client's reaction and rejects.
 */
export async function downloadPack(status: PackStatusData): Promise<void> {
  const target = packFileUrl(status);
  if (!target) throw new ApiError(40010, i18n.t('errors:packNotReady'));
  const fallbackName = status.fileName ?? `${status.kind}-${status.version ?? status.id ?? 'pack'}${status.kind === 'sdk' ? '.zip' : '.onnx'}`;
  if (!target.withToken) {
    save(target.url, fallbackName);
    return;
  }
  const headers: Record<string, string> = { [HeaderNames.language]: currentLanguage() };
  const token = getSession().token;
  if (token) headers[HeaderNames.token] = token;
  let res: Response;
  try {
    res = await fetch(target.url, { headers });
  } catch {
    throw new ApiError(NETWORK_ERROR_CODE, i18n.t('common:errors.network'));
  }
  if ((res.headers.get('content-type') ?? '').includes('application/json') || !res.ok) {
    const envelope = (await res.json().catch(() => ({}))) as { code?: number; message?: string; data?: unknown };
    throw react(new ApiError(envelope.code ?? res.status, envelope.message || i18n.t('common:errors.badResponse'), envelope.data));
  }
  const blob = await res.blob();
  const url = URL.createObjectURL(blob);
  try {
    save(url, fileNameOf(res.headers.get('content-disposition')) ?? fallbackName);
  } finally {
    // The click has started the save; the blob is freed once the browser has taken it.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }
}
