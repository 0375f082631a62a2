import { Router } from '@koa/router';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { renderDocsPage } from '../docs-page.js';
import { openApiDocument } from '../openapi.js';

/** GET /openapi.json: the contract, built once from the validation schemas; GET /docs: the same, as HTML. */
export function openApiRoutes(deps: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  const document = openApiDocument(deps.config.publicBaseUrl);
  const page = renderDocsPage(document);
  router.get('/openapi.json', (ctx) => {
    ctx.body = document;
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });
  return router;
}
