import { randomBytes } from 'node:crypto';
import type { Router } from '@koa/router';
import { AppError } from '../../shared/platform/errors.js';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { docsAsset, docsScriptUrl } from '../docs-assets.js';
import { docsPageCsp, renderDocsPage } from '../docs-page.js';
import { openApiDocument } from '../openapi.js';
import { localDateTime } from '../../shared/domain/time-zone.js';
import { PUBLIC_ACCESS } from '../access/public-access.js';
import { apiRouter, routesWith } from '../routing/api-router.js';

/**
 * GET /openapi.json: the contract, built from the validation schemas once a day (its request examples carry
 * dates relative to the day they are served); GET /docs: the same, rendered by Redoc in the browser from our
 * own copy of its bundle; GET /: where they are.
 */
export function openApiRoutes(deps: ApiDeps): Router<AppState> {
  const router = apiRouter();
  const routes = routesWith(router, PUBLIC_ACCESS);
  let served = { day: '', document: openApiDocument(deps.config.publicBaseUrl) };
  routes.get('/openapi.json', (ctx) => {
    const now = new Date();
    const day = localDateTime(now, 'America/Mexico_City').slice(0, 10);
    if (served.day !== day) served = { day, document: openApiDocument(deps.config.publicBaseUrl, now) };
    ctx.body = served.document;
  });
  // The root says where to go: a browser lands on the reference, a client gets the links.
  routes.get('/', (ctx) => {
    if (ctx.accepts('json', 'html') === 'html') return ctx.redirect('/docs');
    ctx.body = { service: 'autofactura-qr', docs: '/docs', openapi: '/openapi.json', health: '/health' };
  });
  routes.get('/docs', (ctx) => {
    // A fresh nonce per answer: the only script and styles the page may run are the ones it names.
    const nonce = randomBytes(16).toString('base64');
    ctx.set({ 'Content-Security-Policy': docsPageCsp(nonce), 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' });
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = renderDocsPage({ title: served.document.info.title, scriptUrl: docsScriptUrl(), nonce });
  });
  routes.get('/docs/assets/:name', (ctx) => {
    const asset = docsAsset(ctx.params.name ?? '');
    if (!asset) throw new AppError(404, 'not_found', 'No such asset.');
    ctx.set('Cache-Control', ctx.query.h === asset.hash ? 'public, max-age=31536000, immutable' : 'no-cache');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.vary('Accept-Encoding');
    ctx.type = asset.type;
    if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = asset.gzipped;
    } else {
      ctx.body = asset.body;
    }
  });
  return router;
}
