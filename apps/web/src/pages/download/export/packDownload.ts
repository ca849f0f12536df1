import { ExportPaths, type PackStatusData } from '@loupe/contracts';
import i18n from '@/i18n';
import { ApiError } from '@/api/errors';
import { pathOf } from '@/pages/gallery/galleryApi';
import { downloadFile } from '../exportDownload';

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
 * Download a ready pack as a file. The API's route goes through downloadFile: a refusal (8008 no permission,
 * packNotReady) is read from its JSON envelope, gets the client's reaction and rejects; the file itself is handed
 * to a link (the files cookie signs it in), so a large SDK streams to disk rather than into the page's memory.
 * A storage URL on another host is signed by itself and saved as it is.
 */
export async function downloadPack(status: PackStatusData): Promise<void> {
  const target = packFileUrl(status);
  if (!target) throw new ApiError(40010, i18n.t('errors:packNotReady'));
  if (target.withToken) return downloadFile(target.url);
  save(target.url, status.fileName ?? `${status.kind}-${status.version ?? status.id ?? 'pack'}${status.kind === 'sdk' ? '.zip' : '.onnx'}`);
}
