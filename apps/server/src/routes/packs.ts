import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DownloadParams, ExportPaths, ExportStartBody, PackStatusData, PackStatusQuery } from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { pickLanguage, withFailuresIn } from '../i18n.js';
import { requireUser, userOf } from '../http/auth-hooks.js';
import type { Deps } from '../services/deps.js';
import { packForDownload, packStatus, startPack } from '../services/delivery/packs.js';

/** RFC 6266 attachment: an ASCII fallback name plus the exact UTF-8 one (model names may be Chinese or Russian). */
function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** Export and download (SPEC §7 modelPackStatus and download; §2 /download/downloadModel, downloadSDK). */
export function packRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['export'];
    const preHandler = requireUser(deps);
    app.post(ExportPaths.pack, { schema: { tags, body: ExportStartBody, response: responses(PackStatusData) }, preHandler }, async (req) =>
      ok(withFailuresIn(await startPack(deps, userOf(req), req.body), pickLanguage(req.headers.language))),
    );
    app.get(ExportPaths.status, { schema: { tags, querystring: PackStatusQuery, response: responses(PackStatusData) }, preHandler }, async (req) =>
      ok(withFailuresIn(await packStatus(deps, userOf(req), req.query), pickLanguage(req.headers.language))),
    );
    app.get(ExportPaths.download, { schema: { tags, params: DownloadParams }, preHandler: requireUser(deps, { cookie: true }) }, async (req, reply) => {
      const p = await packForDownload(deps, userOf(req), req.params.id, req.params.inputW, req.params.inputH);
      return reply
        .header('content-type', p.file_name.endsWith('.zip') ? 'application/zip' : 'application/octet-stream')
        .header('content-disposition', attachment(p.file_name))
        .header('content-length', String(p.bytes))
        .header('cache-control', 'private, no-store')
        .send(deps.blobs.read(p.artifact_sha));
    });
  };
}
