import type { Middleware } from 'koa';
import { AppError } from '../../shared/platform/errors.js';
import type { AppState } from '../context.js';

/**
 * One spelling per path: a trailing slash (but on `/`) or an empty segment is no route. Refused before
 * every router, so no router's own slash rule can make a second spelling of a guarded route.
 */
export function canonicalPath(): Middleware<AppState> {
  return async (ctx, next) => {
    if (ctx.path !== '/' && (ctx.path.endsWith('/') || ctx.path.includes('//'))) {
      throw new AppError(404, 'route_not_found', `No route for ${ctx.method} ${ctx.path}.`);
    }
    await next();
  };
}
