import type { Router } from '@koa/router';
import { metricsAccess } from '../access/metrics-access.js';
import { apiRouter, routesWith } from '../routing/api-router.js';
import { recordQueueDepths } from '../../shared/platform/metrics/record-queue-depths.js';
import { registry } from '../../shared/platform/metrics/registry.js';
import { recordNeedsAttention } from '../../shared/status/needs-attention.js';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';

export const METRICS_PATH = '/metrics';

/**
 * GET /metrics: this process's metrics in Prometheus's text format, plus the depth of every queue read
 * from Redis now (the API owns the queue gauges: every process sees the same Redis, one is enough) and what
 * needs attention read from PostgreSQL now (shared/status/needs-attention.ts).
 * Metrics reveal traffic, so only `Authorization: Bearer <METRICS_TOKEN>` reads them; with no token
 * configured they are off (404).
 */
export function metricsRoutes(deps: Pick<ApiDeps, 'config' | 'producers' | 'db'>): Router<AppState> {
  const router = apiRouter();
  routesWith(router, metricsAccess(deps)).get(METRICS_PATH, async (ctx) => {
    // Redis down: the rest still answers; the queue gauges are left out and /health says why.
    await Promise.all([
      recordQueueDepths(deps.producers).catch((err: unknown) => ctx.state.log.warn({ err }, 'queue depths not read')),
      recordNeedsAttention(deps.db).catch((err: unknown) => ctx.state.log.warn({ err }, 'needs-attention counts not read')),
    ]);
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Type', registry.contentType);
    ctx.body = await registry.metrics();
  });
  return router;
}
