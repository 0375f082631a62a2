import type { Middleware } from 'koa';
import type { AppState } from '../context.js';

/** Who may call a route: its name (for tests and docs) and the middleware that enforces it. */
export type AccessMiddleware = Middleware<AppState> & { readonly [ACCESS]: string };

const ACCESS = Symbol('access');

/** Marks a middleware as a route's access rule; routerOf() puts the declared one first on every route. */
export function declareAccess(name: string, middleware: Middleware<AppState>): AccessMiddleware {
  return Object.assign(middleware, { [ACCESS]: name });
}

/** The access rule's name, or undefined for a middleware that is none. */
export function accessOf(middleware: unknown): string | undefined {
  return typeof middleware === 'function' && ACCESS in middleware ? (middleware as AccessMiddleware)[ACCESS] : undefined;
}
