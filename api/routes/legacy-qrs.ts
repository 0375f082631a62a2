import type { Router } from '@koa/router';
import { legacyCreatedView, legacyResolvedView } from '../contract/legacy/legacy-qr-views.js';
import { legacyLinkHeader } from '../legacy/legacy-sunset.js';
import { qrTransactionView } from '../contract/qrs/qr-transaction-view.js';
import { ensureInvoiceable } from '../buyer/open-sale.js';
import type { AppState } from '../context.js';
import { viewContext, type ApiDeps } from '../deps.js';
import { createLegacyQr } from '../legacy/create-legacy-qr.js';
import { idempotencyCacheReads } from '../qrs/create-qr.js';
import { ownSaleFromLink } from '../legacy/own-sale-from-link.js';
import { jsonBody } from '../middleware/json-body.js';
import { legacyDeprecation } from '../middleware/legacy-deprecation.js';
import { preceded } from '../access/access.js';
import { managementAccess } from '../access/management-access.js';
import { apiRouter, routesWith } from '../routing/api-router.js';

export interface LegacyQrRoutesOptions {
  /** The clock that decides the sunset; tests move it. */
  now?: () => Date;
}

/**
 * The earlier contract (spec "Versioning" 4), still answered for integrations that never migrated, with
 * Deprecation, Sunset and Link headers until the sunset and 410 `endpoint_sunset` after it.
 */
export function legacyQrRoutes(deps: ApiDeps, options: LegacyQrRoutesOptions = {}): Router<AppState> {
  const router = apiRouter('/api/v1/qrs');
  const now = options.now ?? (() => new Date());
  const base = deps.config.publicBaseUrl;
  const access = managementAccess(deps);
  const apiKey = access.apiKey;
  const creating = access.apiKeyPrefetching((ctx, keyId) => idempotencyCacheReads(ctx.get('Idempotency-Key'), keyId));

  // The deprecation headers (and the 410 after the sunset) come before the key is checked: a 401 carries them too.
  const createDeprecation = legacyDeprecation({ now, link: legacyLinkHeader(base, '/v1/qrs'), successor: 'POST /v1/qrs' });
  routesWith(router, preceded(createDeprecation, creating)).post('/', jsonBody(deps.config.jsonBodyLimit), async (ctx) => {
    const result = await createLegacyQr(deps, ctx.state.apiKey!, {
      body: ctx.request.body,
      idempotencyKey: ctx.get('Idempotency-Key'),
      timeZone: ctx.get('X-TIME-ZONE'),
      presentedKeyId: ctx.state.presentedKeyId!,
      ...(ctx.state.prefetched ? { prefetched: ctx.state.prefetched } : {}),
    });
    if (result.replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.status = 201;
    ctx.body = legacyCreatedView(result.view);
  });

  /** The merchant reading its own QR: unlike the buyer's resolve, it does not move PENDING to SCANNED. */
  const readDeprecation = legacyDeprecation({ now, link: legacyLinkHeader(base), successor: 'GET /v1/qrs/{qrId}' });
  routesWith(router, preceded(readDeprecation, apiKey)).get('/', async (ctx) => {
    const sale = await ownSaleFromLink(deps, ctx.state.apiKey!, ctx.query);
    ctx.set('Link', legacyLinkHeader(base, `/v1/qrs/${sale.record.transaction.id}`));
    await ensureInvoiceable(deps, sale);
    ctx.body = legacyResolvedView(qrTransactionView(sale.record, viewContext(deps)));
  });

  return router;
}
