import { AppError } from '../../shared/platform/errors.js';
import { isMetricsToken } from '../../shared/platform/metrics/metrics-token.js';
import type { ApiDeps } from '../deps.js';
import { declareAccess, type AccessMiddleware } from './access.js';

/** `Authorization: Bearer <METRICS_TOKEN>` (metrics reveal traffic); with no token configured, metrics are off (404). */
export function metricsAccess(deps: Pick<ApiDeps, 'config'>): AccessMiddleware {
  return declareAccess('metrics-token', async (ctx, next) => {
    const token = deps.config.metricsToken;
    if (!token) throw new AppError(404, 'not_found', 'Metrics are off: set METRICS_TOKEN to serve them.');
    if (!isMetricsToken(ctx.get('Authorization'), token)) {
      throw new AppError(401, 'unauthorized', 'Metrics need Authorization: Bearer with the metrics token.', { headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' } });
    }
    await next();
  });
}
