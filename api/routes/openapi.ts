import { Router } from '@koa/router';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { renderDocsPage } from '../docs-page.js';
import { openApiDocument } from '../openapi.js';

/** GET /openapi.json: the contract, built once from the validation schemas; GET /docs: the same, as HTML; GET /: where they are. */
export function openApiRoutes(deps: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  const document = openApiDocument(deps.config.publicBaseUrl);
  const page = renderDocsPage(document);
  router.get('/openapi.json', (ctx) => {
    ctx.body = document;
  });
  // The root says where to go: a browser lands on the reference, a client gets the links.
  router.get('/', (ctx) => {
    if (ctx.accepts('json', 'html') === 'html') return ctx.redirect('/docs');
    ctx.body = { service: 'autofactura-qr', docs: '/docs', openapi: '/openapi.json', health: '/health' };
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });
  return router;
}
