import type { Middleware } from 'koa';
import type { AppState } from '../context.js';

/** Who may call a route: its name (for tests and docs) and the middleware that enforces it. */
export type AccessMiddleware = Middleware<AppState> & { readonly [ACCESS]: string };

const ACCESS = Symbol('access');

/** Marks a middleware as a route's access rule; routesWith() puts one first on every route. */
export function declareAccess(name: string, middleware: Middleware<AppState>): AccessMiddleware {
  return Object.assign(middleware, { [ACCESS]: name });
}

/** The access rule's name, or undefined for a middleware that is none. */
export function accessOf(middleware: unknown): string | undefined {
  return typeof middleware === 'function' && ACCESS in middleware ? (middleware as AccessMiddleware)[ACCESS] : undefined;
}

/** The same access rule with a step before it that must see every request, refusals included (e.g. deprecation headers). */
export function preceded(step: Middleware<AppState>, access: AccessMiddleware): AccessMiddleware {
  return declareAccess(access[ACCESS], async (ctx, next) => {
    await step(ctx, async () => {
      await access(ctx, next);
    });
  });
}
