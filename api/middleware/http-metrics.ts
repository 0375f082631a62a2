import type { Layer, RouterContext } from '@koa/router';
import type { Middleware, ParameterizedContext } from 'koa';
import { httpRequestDuration, idempotencyConflicts, idempotentReplays } from '../../shared/platform/metrics/registry.js';
import type { AppState } from '../context.js';
import { METRICS_PATH } from '../routes/metrics.js';

/**
 * The pattern of the route that took the request (`/v1/qrs/:qrId`), never the path: paths carry ids
 * and QR tokens, one time series each. This is the layer @koa/router records in `_matchedRoute`
 * before running a route; read from `ctx.matched` because a router's own middleware (bearer auth)
 * overwrites `_matchedRoute` with its prefix pattern as it runs, and a 401 would stop there.
 */
function routePattern(ctx: ParameterizedContext<AppState>): string {
  const { matched } = ctx as Pick<RouterContext<AppState>, 'matched'>;
  const route = (matched ?? []).filter((layer: Layer<AppState>) => layer.methods.includes(ctx.method)).at(-1);
  return route ? String(route.path) : 'unmatched';
}

function errorCode(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || !('error' in body)) return undefined;
  const { error } = body;
  return typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
}

/**
 * Mounted first, so it sees the status the error middleware answered. Times every request by method,
 * route pattern and status, and counts idempotent replays and key conflicts from the answer itself,
 * so every route with an idempotency key counts the same way. /metrics is left out: scrapes are not traffic.
 */
export function httpMetrics(): Middleware<AppState> {
  return async (ctx, next) => {
    const end = httpRequestDuration.startTimer();
    await next();
    const route = routePattern(ctx);
    if (route === METRICS_PATH) return;
    end({ method: ctx.method, route, status: String(ctx.status) });
    if (ctx.response.get('Idempotent-Replayed') === 'true') idempotentReplays.inc({ route });
    if (ctx.status === 409 && errorCode(ctx.body) === 'idempotency_key_reused') idempotencyConflicts.inc({ route });
  };
}
