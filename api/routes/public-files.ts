import { AppError } from '../../shared/platform/errors.js';
import { publicRule } from '../access/access-rules.js';
import { binary, errorResponse } from '../routing/openapi-parts.js';
import { defineRoute } from '../routing/route.js';

/** GET /v1/public/files/{folder...}/{name}: stored public files (logos), immutable under their random key. */
export const publicFileRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/public/files/{kind}/{owner}/{name}',
    access: publicRule,
    operationId: 'getPublicFile',
    summary: 'A public stored file (logos)',
    responses: { 200: { description: 'The file, immutable', content: binary('image/png', 'image/webp') }, 404: errorResponse('No such file') },
    handle: (deps) => async (ctx) => {
      const file = await deps.files.get(`${ctx.params.kind}/${ctx.params.owner}/${ctx.params.name}`);
      if (!file) throw new AppError(404, 'file_not_found', 'No such file.');
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.type = file.contentType;
      ctx.body = file.data;
    },
  }),
];
