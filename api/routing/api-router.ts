import { Router, type RouterMiddleware } from '@koa/router';
import type { AccessMiddleware } from '../access/access.js';
import type { Middleware } from 'koa';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { multipartBody } from '../middleware/multipart-body.js';
import type { Route } from './route.js';

/**
 * Every router of the API: paths match case-sensitively (one spelling per route; the canonical-path
 * middleware refuses trailing and doubled slashes before any router). No router-level `use`: a
 * prefix-level middleware and the routes it guards can disagree on what matches (issue #28).
 */
export function apiRouter(prefix?: string): Router<AppState> {
  return new Router<AppState>({ ...(prefix === undefined ? {} : { prefix }), sensitive: true });
}

type Register = (path: string, ...middleware: RouterMiddleware<AppState>[]) => Routes;

/** Route registration with its access rule first: a route cannot be added to `router` without one. */
export interface Routes {
  get: Register;
  post: Register;
  put: Register;
  patch: Register;
  delete: Register;
}

export function routesWith(router: Router<AppState>, access: AccessMiddleware): Routes {
  const register =
    (method: 'get' | 'post' | 'put' | 'patch' | 'delete'): Register =>
    (path, ...middleware) => {
      router[method](path, access, ...middleware);
      return routes;
    };
  const routes: Routes = { get: register('get'), post: register('post'), put: register('put'), patch: register('patch'), delete: register('delete') };
  return routes;
}

/** The router path of an OpenAPI path template: '/v1/qrs/{qrId}' → '/v1/qrs/:qrId'. */
export function routerPath(template: string): string {
  return template.replace(/\{(\w+)\}/g, ':$1');
}

/**
 * The only way a declared route gets on a router: its access rule first, then its middleware (rate rules, body
 * parser), its form, its handler; one router per group, in the group's order.
 */
export function routerOf(deps: ApiDeps, routes: readonly Route[]): Router<AppState> {
  const router = apiRouter();
  for (const route of routes) {
    const middleware: Middleware<AppState>[] = [route.access.middleware(deps), ...(route.use?.(deps) ?? [])];
    if (route.form) middleware.push(multipartBody(route.form));
    router[route.method](routerPath(route.path), ...middleware, route.handle(deps));
  }
  return router;
}
