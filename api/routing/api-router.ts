import { Router, type RouterMiddleware } from '@koa/router';
import type { AccessMiddleware } from '../access/access.js';
import type { AppState } from '../context.js';

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
