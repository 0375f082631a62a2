import type { Router } from '@koa/router';
import { AppError } from '../../shared/platform/errors.js';
import { qrTransactionView } from '../contract/qrs/qr-transaction-view.js';
import { findInvoice, liveInvoice } from '../../shared/repositories/invoices.js';
import { mayHaveStampedInvoice } from '../../shared/domain/qr-lifecycle.js';
import type { AppState } from '../context.js';
import { viewContext, type ApiDeps } from '../deps.js';
import { jsonBody } from '../middleware/json-body.js';
import { createQr, idempotencyCacheReads } from '../qrs/create-qr.js';
import { findOwnQr, fixedViewCache } from '../qrs/stored-qr.js';
import { invoiceQrs } from '../invoices/invoice-qrs.js';
import { invoiceQrsRequestSchema } from '../contract/qrs/invoice-qrs-schema.js';
import { validator } from '../../shared/platform/validation/ajv.js';
import { managementAccess } from '../access/management-access.js';
import { apiRouter, routesWith } from '../routing/api-router.js';
import { registerBookRoutes } from './books.js';

const validateInvoiceQrs = validator(invoiceQrsRequestSchema);

/**
 * POST /v1/qrs, POST /v1/qrs/invoices and GET /v1/qrs/{qrId}, authenticated by X-API-Key; and, registered
 * before GET /v1/qrs/{qrId} so it cannot claim their paths, the books' lists and export (routes/books.ts).
 */
export function qrRoutes(deps: ApiDeps): Router<AppState> {
  const router = apiRouter('/v1/qrs');
  const access = managementAccess(deps);
  const routes = routesWith(router, access.apiKey);

  // The idempotency cache is read in the access rule's Redis round trip: one round trip before the insert.
  const creating = access.apiKeyPrefetching((ctx, keyId) => idempotencyCacheReads(ctx.get('idempotency-key'), keyId));
  routesWith(router, creating).post('/', jsonBody(deps.config.jsonBodyLimit), async (ctx) => {
    const principal = ctx.state.apiKey!;
    const result = await createQr(deps, principal, {
      body: ctx.request.body,
      timeZone: ctx.get('X-TIME-ZONE'),
      idempotencyKey: ctx.get('idempotency-key'),
      presentedKeyId: ctx.state.presentedKeyId!,
      ...(ctx.state.prefetched ? { prefetched: ctx.state.prefetched } : {}),
    });
    if (result.replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.status = 201;
    ctx.body = result.view;
  });

  /** Several QR sales (or one) in one CFDI for a known customer; `dry_run` answers the totals. */
  routes.post('/invoices', jsonBody(deps.config.jsonBodyLimit), async (ctx) => {
    const result = await invoiceQrs(deps, ctx.state.apiKey!, validateInvoiceQrs(ctx.request.body), ctx.state.log);
    ctx.status = result.status;
    ctx.body = result.body;
  });

  registerBookRoutes(router, deps);

  routes.get('/:qrId', async (ctx) => {
    const principal = ctx.state.apiKey!;
    const record = await findOwnQr(deps.db, principal, ctx.params.qrId ?? '');
    if (!record) throw new AppError(404, 'transaction_not_found', `No QR transaction ${ctx.params.qrId} for this API key.`);
    const globalId = record.transaction.global_invoice_id;
    // A pending or scanned QR has no stamped invoice: no query for it (the common read, a POS polling).
    const invoice = mayHaveStampedInvoice(record.transaction.status) ? await liveInvoice(deps.db, record.transaction.id) : undefined;
    const view = viewContext(deps);
    ctx.body = qrTransactionView(record, view, invoice, globalId ? await findInvoice(deps.db, globalId) : undefined, fixedViewCache.parts(record, view));
  });

  return router;
}
