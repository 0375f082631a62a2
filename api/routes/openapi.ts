import { randomBytes } from 'node:crypto';
import { AppError } from '../../shared/platform/errors.js';
import { docsAsset, docsScriptUrl } from '../docs-assets.js';
import { docsPageCsp, renderDocsPage } from '../docs-page.js';
import { openApiDocumentOf } from '../openapi.js';
import { localDateTime } from '../../shared/domain/time-zone.js';
import { publicRule } from '../access/access-rules.js';
import { errorResponse, json } from '../routing/openapi-parts.js';
import { defineRoute, type Route } from '../routing/route.js';

/**
 * GET /openapi.json: the contract, built from the route declarations (`documented`) and the validation schemas
 * once a day (its request examples carry dates relative to the day they are served); GET /docs: the same,
 * rendered by Redoc in the browser from our own copy of its bundle; GET /: where they are.
 */
export function openApiRoutes(documented: () => readonly Route[]): Route[] {
  let served: { key: string; document: ReturnType<typeof openApiDocumentOf> } | undefined;
  const documentFor = (publicBaseUrl: string) => {
    const now = new Date();
    const key = `${localDateTime(now, 'America/Mexico_City').slice(0, 10)} ${publicBaseUrl}`;
    if (served?.key !== key) served = { key, document: openApiDocumentOf(documented(), publicBaseUrl, now) };
    return served.document;
  };
  return [
    defineRoute({
      method: 'get',
      path: '/openapi.json',
      access: publicRule,
      operationId: 'getOpenApiDocument',
      summary: 'This document',
      responses: { 200: { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } } },
      handle: (deps) => (ctx) => {
        ctx.body = documentFor(deps.config.publicBaseUrl);
      },
    }),
    // The root says where to go: a browser lands on the reference, a client gets the links.
    defineRoute({
      method: 'get',
      path: '/',
      access: publicRule,
      operationId: 'getServiceLinks',
      summary: 'Where the documentation is: a browser (Accept: text/html) is redirected to /docs; others get { service, docs, openapi, health }',
      responses: { 200: { description: 'Links', content: json('ServiceLinks') }, 302: { description: 'To /docs' } },
      handle: () => (ctx) => {
        if (ctx.accepts('json', 'html') === 'html') return ctx.redirect('/docs');
        ctx.body = { service: 'autofactura-qr', docs: '/docs', openapi: '/openapi.json', health: '/health' };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/docs',
      access: publicRule,
      operationId: 'getReferencePage',
      summary: 'This document as an interactive reference (Redoc, rendered in the browser from /openapi.json)',
      responses: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } },
      handle: (deps) => (ctx) => {
        // A fresh nonce per answer: the only script and styles the page may run are the ones it names.
        const nonce = randomBytes(16).toString('base64');
        ctx.set({ 'Content-Security-Policy': docsPageCsp(nonce), 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' });
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = renderDocsPage({ title: documentFor(deps.config.publicBaseUrl).info.title, scriptUrl: docsScriptUrl(), nonce });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/docs/assets/{name}',
      access: publicRule,
      operationId: 'getReferencePageAsset',
      summary: "The reference page's script: Redoc's standalone bundle from its npm package (immutable under its content hash `h`)",
      responses: { 200: { description: 'text/javascript', content: { 'text/javascript': { schema: { type: 'string' } } } }, 404: errorResponse('No such asset') },
      handle: () => (ctx) => {
        const asset = docsAsset(ctx.params.name);
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
      },
    }),
  ];
}
