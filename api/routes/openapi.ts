import { Router } from '@koa/router';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { openApiDocument } from '../openapi.js';

/** GET /openapi.json: the contract, built once from the validation schemas. */
export function openApiRoutes(deps: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  const document = openApiDocument(deps.config.publicBaseUrl);
  router.get('/openapi.json', (ctx) => {
    ctx.body = document;
  });
  return router;
}
