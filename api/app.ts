import Koa from 'koa';
import type { Router } from '@koa/router';
import type { AppState } from './context.js';
import type { ApiDeps } from './deps.js';
import { queueDashboard } from './admin/queue-dashboard.js';
import { errorHandler } from './middleware/error-handler.js';
import { canonicalPath } from './middleware/canonical-path.js';
import { handlersInFlight, type HandlersInFlight } from './middleware/handlers-in-flight.js';
import { httpMetrics } from './middleware/http-metrics.js';
import { requestContext } from './middleware/request-context.js';
import { authRoutes } from './routes/auth.js';
import { healthRoutes } from './routes/health.js';
import { metricsRoutes } from './routes/metrics.js';
import { statusPageRoutes } from './routes/status-page.js';
import { issuerRoutes } from './routes/issuers.js';
import { merchantRoutes } from './routes/merchants.js';
import { offlineClaimRoutes, offlineKeyRoutes } from './routes/offline-keys.js';
import { productRoutes } from './routes/products.js';
import { openApiRoutes } from './routes/openapi.js';
import { publicFileRoutes } from './routes/public-files.js';
import { publicExportRoutes } from './routes/public-exports.js';
import { publicQrImageRoutes } from './routes/public-qr-image.js';
import { publicBuyerRoutes } from './routes/public-buyer.js';
import { publicOfflineClaimRoutes } from './routes/public-offline-claims.js';
import { invoiceRoutes } from './routes/invoices.js';
import { buyerPageRoutes } from './routes/buyer-page.js';
import { qrRoutes } from './routes/qrs.js';
import { webhookRoutes } from './routes/webhooks.js';
import { creditNoteRoutes } from './routes/credit-notes.js';
import { paymentComplementRoutes } from './routes/payment-complements.js';
import { globalInvoiceRoutes } from './routes/global-invoices.js';
import { legacyQrRoutes } from './routes/legacy-qrs.js';

/**
 * Every router, in matching order. Management routers come before qrRoutes: its GET /v1/qrs/:qrId
 * would otherwise claim /v1/qrs/issuers.
 */
export function apiRouters(deps: ApiDeps): Router<AppState>[] {
  return [
    healthRoutes(deps),
    metricsRoutes(deps),
    statusPageRoutes(deps),
    openApiRoutes(deps),
    authRoutes(deps),
    globalInvoiceRoutes(deps),
    issuerRoutes(deps),
    merchantRoutes(deps),
    offlineKeyRoutes(deps),
    offlineClaimRoutes(deps),
    productRoutes(deps),
    creditNoteRoutes(deps),
    paymentComplementRoutes(deps),
    invoiceRoutes(deps),
    webhookRoutes(deps),
    qrRoutes(deps),
    legacyQrRoutes(deps),
    publicQrImageRoutes(deps),
    publicBuyerRoutes(deps),
    publicOfflineClaimRoutes(deps),
    publicFileRoutes(deps),
    publicExportRoutes(deps),
    buyerPageRoutes(deps),
  ];
}

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
