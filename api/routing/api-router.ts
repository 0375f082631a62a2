import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { jsonBody } from '../middleware/json-body.js';
import { multipartBody } from '../middleware/multipart-body.js';
import type { JsonRequest } from './request-body.js';
import type { QueryRequest } from './request-query.js';
import type { Route } from './route.js';

/** The router path of an OpenAPI path template: '/v1/qrs/{qrId}' → '/v1/qrs/:qrId'. */
export function routerPath(template: string): string {
  return template.replace(/\{(\w+)\}/g, ':$1');
}

/** The declared body, validated into `ctx.state.body`: the handler gets it only once it passed. */
function validated(body: JsonRequest<unknown>): Middleware<AppState> {
  return async (ctx, next) => {
    ctx.state.body = body.validate(ctx.request.body);
    await next();
  };
}

/** The declared query, parsed into `ctx.state.query`. */
function parsedQuery(query: QueryRequest<unknown>): Middleware<AppState> {
  return async (ctx, next) => {
    ctx.state.query = query.parse(ctx.query);
    await next();
  };
}

/**
 * A declared route's middleware, in order: its access rule, the rate rules that read no body, its query's
 * parser, the check before the body, the body parser with its limit, the rate rules that count what the body says, the body's
 * validation, the handler.
 */
export function routeMiddleware(deps: ApiDeps, route: Route): Middleware<AppState>[] {
  const middleware: Middleware<AppState>[] = [route.access.middleware(deps)];
  middleware.push(...route.rate.filter((rule) => !rule.readsBody).map((rule) => rule.middleware(deps)));
  if (route.query) middleware.push(parsedQuery(route.query));
  if (route.beforeBody) middleware.push(route.beforeBody(deps));
  if (route.body) middleware.push(jsonBody(route.body.limit ?? deps.config.jsonBodyLimit, { form: route.body.urlencoded }));
  if (route.form) middleware.push(multipartBody(route.form));
  middleware.push(...route.rate.filter((rule) => rule.readsBody).map((rule) => rule.middleware(deps)));
  if (route.body) middleware.push(validated(route.body));
  middleware.push(route.handle(deps));
  return middleware;
}

/**
 * The only way a route gets on a router: its declaration's middleware, one router per group, in the group's
 * order. Paths match case-sensitively (one spelling per route; the canonical-path middleware refuses trailing
 * and doubled slashes before any router). No router-level `use`: a prefix-level middleware and the routes it
 * guards can disagree on what matches (issue #28).
 */
export function routerOf(deps: ApiDeps, routes: readonly Route[]): Router<AppState> {
  const router = new Router<AppState>({ sensitive: true });
  for (const route of routes) router[route.method](routerPath(route.path), ...routeMiddleware(deps, route));
  return router;
}
