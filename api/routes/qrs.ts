import { AppError } from '../../shared/platform/errors.js';
import { qrTransactionView } from '../contract/qrs/qr-transaction-view.js';
import { viewContext } from '../deps.js';
import { createQr, idempotencyCacheReads } from '../qrs/create-qr.js';
import { readOwnQr } from '../qrs/stored-qr.js';
import { invoiceQrs } from '../invoices/invoice-qrs.js';
import { invoiceQrsRequestSchema } from '../contract/qrs/invoice-qrs-schema.js';
import { apiKeyPrefetchingRule, apiKeyRule } from '../access/access-rules.js';
import { errorResponse, json } from '../routing/openapi-parts.js';
import { jsonParsedOnly, jsonRequest } from '../routing/request-body.js';
import { defineRoute } from '../routing/route.js';
import { bookRoutes } from './books.js';

/**
 * POST /v1/qrs, POST /v1/qrs/invoices and GET /v1/qrs/{qrId}, authenticated by X-API-Key; and, registered
 * before GET /v1/qrs/{qrId} so it cannot claim their paths, the books' lists and export (routes/books.ts).
 */
export const qrRoutes = [
  defineRoute({
    method: 'post',
    path: '/v1/qrs',
    // The idempotency cache is read in the access rule's Redis round trip: one round trip before the insert.
    access: apiKeyPrefetchingRule((ctx, keyId) => idempotencyCacheReads(ctx.get('idempotency-key'), keyId)),
    // Validated by createQr with its headers (api/qrs/parse-qr-request.ts).
    body: jsonParsedOnly,
    operationId: 'createQr',
    summary: 'Generate a self-invoicing QR for a sale',
    parameters: [
      { name: 'X-TIME-ZONE', in: 'header', required: true, schema: { type: 'string' }, example: 'America/Mexico_City', description: 'IANA time zone of the sale' },
      { name: 'idempotency-key', in: 'header', required: true, schema: { type: 'string', format: 'uuid' } },
    ],
    requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/QrCreateRequest' } } } },
    responses: {
      201: { description: 'The QR transaction (also for an idempotent replay, with Idempotent-Replayed: true)', content: json('QrTransaction') },
      400: errorResponse('Invalid or missing fields or headers, malformed JSON'),
      404: errorResponse('`store_not_found`: store_uid names no store of this API key'),
      409: errorResponse(
        '`idempotency_key_reused`: the idempotency-key was used with a different body; `sale_has_qr`: the sale_id already has an open or invoiced QR (`error.qr` names it); `offline_ticket_already_bound`: the offline ticket was caught up by another sale',
      ),
      413: errorResponse('Body over the size limit'),
      415: errorResponse('Content-Type is not application/json'),
      422: errorResponse(
        '`rule_violation` (a SAT catalog or arithmetic rule, each in `details`), `merchant_inactive`, `csd_not_configured`, `csd_expired`; for a sale that catches up an offline ticket `offline_ticket_invalid`, `offline_ticket_mismatch`, `offline_ticket_window_passed`, `offline_key_revoked`',
      ),
      500: errorResponse('QR rendering failed; nothing was written'),
      503: errorResponse('Redis or the render worker unavailable; nothing was written'),
    },
    handle: (deps) => async (ctx) => {
      const result = await createQr(deps, ctx.state.apiKey, {
        body: ctx.state.body,
        timeZone: ctx.get('X-TIME-ZONE'),
        idempotencyKey: ctx.get('idempotency-key'),
        presentedKeyId: ctx.state.presentedKeyId,
        prefetched: ctx.state.prefetched,
      });
      if (result.replayed) ctx.set('Idempotent-Replayed', 'true');
      ctx.status = 201;
      ctx.body = result.view;
    },
  }),
  /** Several QR sales (or one) in one CFDI for a known customer; `dry_run` answers the totals. */
  defineRoute({
    method: 'post',
    path: '/v1/qrs/invoices',
    access: apiKeyRule,
    body: jsonRequest(invoiceQrsRequestSchema),
    operationId: 'invoiceQrs',
    summary: 'Invoice several QR sales (or one) in one CFDI for a known customer; `dry_run` answers the totals and records nothing',
    requestBody: { required: true, content: json('InvoiceQrsRequest') },
    responses: {
      200: { description: 'Dry run: `tickets`, `customer` as it will be written, `totals` and `warnings`', content: json('InvoiceQrsDryRun') },
      202: {
        description: 'Recorded and being stamped (`status` STAMPING; the same request again answers the same, with the invoice once ACTIVE); follow it with GET /v1/qrs/{qrId}',
        content: json('InvoiceQrsAccepted'),
      },
      400: errorResponse('Invalid body'),
      409: errorResponse(
        '`already_confirmed`: the first QR is already in another confirmation with other data; `review_outdated`: `review_digest` was sent and what would be stamped differs from that dry run (`review`: the new dry-run answer, with its `review_digest`); nothing recorded',
      ),
      422: errorResponse('`tickets_not_combinable` (one detail per QR: `qr_ids[i]`) or `customer_invalid`'),
    },
    handle: (deps) => async (ctx) => {
      const result = await invoiceQrs(deps, ctx.state.apiKey, ctx.state.body, ctx.state.log);
      ctx.status = result.status;
      ctx.body = result.body;
    },
  }),
  ...bookRoutes,
  defineRoute({
    method: 'get',
    path: '/v1/qrs/{qrId}',
    access: apiKeyRule,
    operationId: 'getQr',
    summary: 'Read a QR transaction',
    responses: {
      200: { description: 'The full QR transaction', content: json('QrTransaction') },
      404: errorResponse('Transaction not found'),
    },
    handle: (deps) => async (ctx) => {
      const view = viewContext(deps);
      const read = await readOwnQr(deps, ctx.state.apiKey, ctx.params.qrId, view);
      if (!read) throw new AppError(404, 'transaction_not_found', `No QR transaction ${ctx.params.qrId} for this API key.`);
      ctx.body = qrTransactionView(read.record, view, read.fixed, read.invoice, read.globalInvoice);
    },
  }),
];
