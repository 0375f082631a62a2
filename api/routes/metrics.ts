import { metricsRule } from '../access/access-rules.js';
import { errorResponse } from '../routing/openapi-parts.js';
import { defineRoute } from '../routing/route.js';
import { recordQueueDepths } from '../../shared/platform/metrics/record-queue-depths.js';
import { registry } from '../../shared/platform/metrics/registry.js';
import { recordNeedsAttention } from '../../shared/status/needs-attention.js';

export const METRICS_PATH = '/metrics';

/**
 * GET /metrics: this process's metrics in Prometheus's text format, plus the depth of every queue read
 * from Redis now (the API owns the queue gauges: every process sees the same Redis, one is enough) and what
 * needs attention read from PostgreSQL now (shared/status/needs-attention.ts).
 * Metrics reveal traffic, so only `Authorization: Bearer <METRICS_TOKEN>` reads them; with no token
 * configured they are off (404).
 */
export const metricsRoutes = [
  defineRoute({
    method: 'get',
    path: METRICS_PATH,
    access: metricsRule,
    operationId: 'getMetrics',
    summary: 'Prometheus metrics of this API process, with every queue\'s depth read now (see docs/operations.md, "Operations: metrics and alerts")',
    responses: {
      200: { description: 'Prometheus text format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } },
      404: errorResponse('Metrics are off: no METRICS_TOKEN configured'),
    },
    handle: (deps) => async (ctx) => {
      // Redis down: the rest still answers; the queue gauges are left out and /health says why.
      await Promise.all([
        recordQueueDepths(deps.producers).catch((err: unknown) => ctx.state.log.warn({ err }, 'queue depths not read')),
        recordNeedsAttention(deps.db).catch((err: unknown) => ctx.state.log.warn({ err }, 'needs-attention counts not read')),
      ]);
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Content-Type', registry.contentType);
      ctx.body = await registry.metrics();
    },
  }),
];
