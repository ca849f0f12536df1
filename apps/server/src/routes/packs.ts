import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DownloadParams, ExportPaths, ExportStartBody, PackStatusData, PackStatusQuery } from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { pickLanguage, withFailuresIn } from '../i18n.js';
import { requireUser, userOf } from '../http/auth-hooks.js';
import type { Deps } from '../services/deps.js';
import { packForDownload, packStatus, startPack } from '../services/delivery/packs.js';
import { sendBlob } from '../http/blob-reply.js';

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
      return sendBlob(deps, req, reply, {
        sha: p.artifact_sha,
        contentType: p.file_name.endsWith('.zip') ? 'application/zip' : 'application/octet-stream',
        filename: p.file_name,
        bytes: p.bytes === null ? undefined : Number(p.bytes),
        cacheControl: 'private, no-store',
      });
    });
  };
}
