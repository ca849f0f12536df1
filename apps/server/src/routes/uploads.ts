import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import { AnnotationImportData, DatasetPaths, ModelParams, UploadData } from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { requireUser, userOf } from '../http/auth-hooks.js';
import { pickLanguage } from '../i18n.js';
import type { Deps } from '../services/deps.js';
import { ownModel } from '../services/models.js';
import { uploadImages } from '../services/gallery/uploads.js';
import { importAnnotationZip } from '../services/formats/import.js';

/** Multipart uploads: images, classified folders, annotation ZIPs (SPEC §5). Bodies are streamed, not parsed. */
export function uploadRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(multipart);
    const tags = ['gallery'];
    const preHandler = requireUser(deps);
    const consumes = ['multipart/form-data'];
    app.post(DatasetPaths.upload, { schema: { tags, consumes, params: ModelParams, response: responses(UploadData) }, preHandler }, async (req) => {
      const model = await ownModel(deps, userOf(req), req.params.modelId);
      return ok(await uploadImages(deps, model, req, 'images', pickLanguage(req.headers.language)));
    });
    app.post(DatasetPaths.uploadFolders, { schema: { tags, consumes, params: ModelParams, response: responses(UploadData) }, preHandler }, async (req) => {
      const model = await ownModel(deps, userOf(req), req.params.modelId);
      return ok(await uploadImages(deps, model, req, 'folders', pickLanguage(req.headers.language)));
    });
    app.post(
      DatasetPaths.uploadAnnotations,
      { schema: { tags, consumes, params: ModelParams, response: responses(AnnotationImportData) }, preHandler },
      async (req) => {
        const model = await ownModel(deps, userOf(req), req.params.modelId);
        return ok(await importAnnotationZip(deps, model, req, pickLanguage(req.headers.language)));
      },
    );
  };
}
