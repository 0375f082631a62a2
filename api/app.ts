import Koa from 'koa';
import type { AppState } from './context.js';
import type { ApiDeps } from './deps.js';
import { queueDashboard } from './admin/queue-dashboard.js';
import { errorHandler } from './middleware/error-handler.js';
import { canonicalPath } from './middleware/canonical-path.js';
import { handlersInFlight, type HandlersInFlight } from './middleware/handlers-in-flight.js';
import { httpMetrics } from './middleware/http-metrics.js';
import { requestContext } from './middleware/request-context.js';
import { apiRouters } from './route-catalog.js';

export { apiRouters };

/** The Koa application: HTTP metrics, request id and log line, the one error middleware, then one router per resource. */
export function createApp(deps: ApiDeps, handlers: HandlersInFlight = handlersInFlight()): Koa<AppState> {
  // Behind N proxies the client IP is the entry the outermost one appended; what the client wrote is ignored.
  const hops = deps.config.trustProxyHops;
  const app = new Koa<AppState>({ proxy: hops > 0, maxIpsCount: hops });
  app.silent = true; // errors are logged once, by the error middleware
  app.use(handlers.middleware);
  app.use(httpMetrics());
  app.use(requestContext(deps.logger));
  app.use(errorHandler());
  app.use(canonicalPath());
  // Outside the routers (and the OpenAPI contract): bull-board brings its own routes.
  const dashboard = queueDashboard(deps);
  if (dashboard) app.use(dashboard);
  for (const router of apiRouters(deps)) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}
