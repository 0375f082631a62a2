import type { Router } from '@koa/router';
import type { AppState } from './context.js';
import type { ApiDeps } from './deps.js';
import { openApiDocumentOf } from './openapi.js';
import { routerOf } from './routing/api-router.js';
import type { Route } from './routing/route.js';
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
 * Every route of the API, one group per router, in matching order: the router and the OpenAPI document are
 * both built from this list. Management groups come before qrRoutes: its GET /v1/qrs/{qrId} would otherwise
 * claim /v1/qrs/issuers.
 */
const GROUPS: readonly (readonly Route[])[] = [
  healthRoutes,
  metricsRoutes,
  statusPageRoutes,
  openApiRoutes(() => declaredRoutes()),
  authRoutes,
  globalInvoiceRoutes,
  issuerRoutes,
  merchantRoutes,
  offlineKeyRoutes,
  offlineClaimRoutes,
  productRoutes,
  creditNoteRoutes,
  paymentComplementRoutes,
  invoiceRoutes,
  webhookRoutes,
  qrRoutes,
  legacyQrRoutes(),
  publicQrImageRoutes,
  publicBuyerRoutes,
  publicOfflineClaimRoutes,
  publicFileRoutes,
  publicExportRoutes,
  buyerPageRoutes,
];

/** Every declared route, in matching order. */
export function declaredRoutes(): Route[] {
  return GROUPS.flat();
}

/** Every router, in matching order. */
export function apiRouters(deps: ApiDeps): Router<AppState>[] {
  return GROUPS.map((group) => routerOf(deps, group));
}

/** The document GET /openapi.json serves at `now` (its examples' dates are relative to it). */
export function openApiDocument(publicBaseUrl: string, now: Date = new Date()) {
  return openApiDocumentOf(declaredRoutes(), publicBaseUrl, now);
}
