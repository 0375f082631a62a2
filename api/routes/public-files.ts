import type { Router } from '@koa/router';
import { AppError } from '../../shared/platform/errors.js';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { PUBLIC_ACCESS } from '../access/public-access.js';
import { apiRouter, routesWith } from '../routing/api-router.js';

/** GET /v1/public/files/{folder...}/{name}: stored public files (logos), immutable under their random key. */
export function publicFileRoutes(deps: ApiDeps): Router<AppState> {
  const router = apiRouter('/v1/public/files');
  const routes = routesWith(router, PUBLIC_ACCESS);
  const files = deps.files;
  routes.get('/:kind/:owner/:name', async (ctx) => {
    const file = await files.get(`${ctx.params.kind}/${ctx.params.owner}/${ctx.params.name}`);
    if (!file) throw new AppError(404, 'file_not_found', 'No such file.');
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = file.contentType;
    ctx.body = file.data;
  });
  return router;
}
