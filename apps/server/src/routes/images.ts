import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  AutoSplitBody,
  AutoSplitData,
  DatasetPaths,
  ExportQuery,
  FileQuery,
  ImageAnnotationsData,
  ImageChangeData,
  ImageIdsBody,
  ImageListData,
  ImageListQuery,
  ImageParams,
  ModelParams,
  SplitSetBody,
  StarBody,
} from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { requireUser, userOf } from '../http/auth-hooks.js';
import type { Deps } from '../services/deps.js';
import { ownModel } from '../services/models.js';
import { deleteImages, imageAnnotations, imageBlob, listImages } from '../services/gallery/images.js';
import { sendBlob } from '../http/blob-reply.js';
import { autoSplit } from '../services/gallery/auto-split.js';
import { exportDataset } from '../services/formats/export.js';

/** Gallery: list, star, split, delete, bytes, annotations, export (SPEC §2 /gallery, /download/downloadImage). */
export function imageRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['gallery'];
    const preHandler = requireUser(deps);
    // <img src> and download links cannot send X-Token: these GETs also take the files cookie (auth-hooks).
    const files = requireUser(deps, { cookie: true });
    const model = (req: { params: { modelId: number } } & Parameters<typeof userOf>[0]) => ownModel(deps, userOf(req), req.params.modelId);

    app.get(DatasetPaths.images, { schema: { tags, params: ModelParams, querystring: ImageListQuery, response: responses(ImageListData) }, preHandler }, async (req) =>
      ok(await listImages(deps, await model(req), req.query)),
    );
    app.post(DatasetPaths.star, { schema: { tags, params: ModelParams, body: StarBody, response: responses(ImageChangeData) }, preHandler }, async (req) =>
      ok({ changed: await deps.images.setStar((await model(req)).id, req.body.ids, req.body.starred) }),
    );
    app.post(DatasetPaths.split, { schema: { tags, params: ModelParams, body: SplitSetBody, response: responses(ImageChangeData) }, preHandler }, async (req) =>
      ok({ changed: await deps.images.setSplit((await model(req)).id, req.body.ids, req.body.split) }),
    );
    app.post(DatasetPaths.remove, { schema: { tags, params: ModelParams, body: ImageIdsBody, response: responses(ImageChangeData) }, preHandler }, async (req) =>
      ok({ changed: await deleteImages(deps, await model(req), req.body.ids) }),
    );
    app.post(DatasetPaths.autoSplit, { schema: { tags, params: ModelParams, body: AutoSplitBody, response: responses(AutoSplitData) }, preHandler }, async (req) =>
      ok(await autoSplit(deps, await model(req), req.body)),
    );
    for (const which of ['original', 'thumbnail'] as const) {
      app.get(DatasetPaths[which], { schema: { tags, params: ImageParams, querystring: FileQuery }, preHandler: files }, async (req, reply) => {
        const file = await imageBlob(deps, await model(req), req.params.imageId, which);
        // Content-addressed: the bytes behind this URL never change, but they are private to the account.
        return sendBlob(deps, req, reply, { sha: file.sha, contentType: file.type, cacheControl: 'private, max-age=31536000, immutable', etag: `"${file.sha}"` });
      });
    }
    app.get(DatasetPaths.annotations, { schema: { tags, params: ImageParams, response: responses(ImageAnnotationsData) }, preHandler }, async (req) =>
      ok(await imageAnnotations(deps, await model(req), req.params.imageId)),
    );
    app.get(DatasetPaths.exportImages, { schema: { tags, params: ModelParams, querystring: ExportQuery }, preHandler: files }, async (req, reply) => {
      const m = await model(req);
      const zip = await exportDataset(deps, m, req.query.format, req.query.split);
      const file = `${m.name.replace(/[^\w.-]+/g, '_') || 'dataset'}-${req.query.format}.zip`;
      return reply.type('application/zip').header('content-disposition', `attachment; filename="${file}"`).send(zip);
    });
  };
}
