import { cursorPageOf } from '../../shared/platform/keyset-cursor.js';
import { readPeriodSummary } from '../../shared/books/read-period-summary.js';
import { listInvoices, listQrs } from '../../shared/repositories/books.js';
import { apiKeyOrBearerRule } from '../access/access-rules.js';
import { booksScope, invoiceExportRequest, invoiceListRequest, invoiceSummaryRequest, qrListRequest } from '../books/books-request.js';
import { EXPORT_CONTENT_TYPES, invoiceExportStream } from '../books/export-invoices.js';
import { invoiceSummaryView, qrSummaryView } from '../contract/books/books-view.js';
import { periodSummaryView } from '../contract/books/period-summary-view.js';
import type { ApiDeps } from '../deps.js';
import { invoiceExportQuerySchema, invoiceListQuerySchema, invoiceSummaryQuerySchema, qrListQuerySchema, queryParameters } from '../contract/books/books-query-schema.js';
import { PENDING_EXPORT_EXAMPLE } from '../openapi-examples.js';
import { errorResponse, json, optionalIdempotencyKey, ref, text } from '../routing/openapi-parts.js';
import { jsonParsedOnly } from '../routing/request-body.js';
import { defineRoute } from '../routing/route.js';
import { AppError } from '../../shared/platform/errors.js';
import { findInvoiceExport, listInvoiceExports } from '../../shared/repositories/invoice-exports.js';
import { exportReader, requestInvoiceExport } from '../books/request-invoice-export.js';
import { invoiceExportView } from '../contract/books/export-view.js';

const linksOf = (deps: ApiDeps) => ({ publicBaseUrl: deps.config.publicBaseUrl, urlSigningKey: deps.config.urlSigningKey });
const merchantNotInScope = errorResponse('`merchant_not_found`: `merchant_id` is not a merchant of these credentials');

/**
 * The merchant's books (issue #32) on qrRoutes' router, before its GET /v1/qrs/{qrId} (which would take
 * "invoices" for a QR id): GET /v1/qrs, GET /v1/qrs/invoices, GET /v1/qrs/invoices/export and
 * GET /v1/qrs/invoices/summary, for the API key
 * (its merchant) or the account's bearer token (its merchants, or one by `merchant_id`). Pages by cursor.
 * POST /v1/qrs/invoices/exports asks for a ZIP of the CFDIs' XML (and PDF), built by a job; GET
 * /v1/qrs/invoices/exports lists the kept ones and GET /v1/qrs/invoices/exports/{exportId} follows one (an API key sees the exports it asked for, a bearer token its account's).
 * The lists, the export and the summary read the replica (deps.readDb: a sale shows its lag late); the exports
 * a client asked for, and the scope's merchants, the primary (followed right after their POST).
 */
/** The exports GET /v1/qrs/invoices/exports lists: an account keeps at most EXPORTS_KEPT_PER_ACCOUNT (20 by default) anyway. */
const EXPORT_LIST_MAX = 100;

export const bookRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/qrs',
    access: apiKeyOrBearerRule,
    operationId: 'listQrs',
    summary: "The merchant's QR transactions, newest first, by cursor: an API key's own (in its mode), or a bearer account's (all its merchants, or `merchant_id`)",
    tags: ['Books'],
    parameters: queryParameters(qrListQuerySchema),
    responses: {
      200: { description: 'A page; `next_cursor` fetches the next one', content: json('QrSummaryPage') },
      400: errorResponse('Invalid filter or page size, unknown parameter, or a cursor no earlier page gave'),
      404: merchantNotInScope,
    },
    handle: (deps) => async (ctx) => {
      const { query, filters, page } = qrListRequest(ctx.query, deps.config.urlSigningKey);
      const scope = await booksScope(deps, ctx, query.merchant_id);
      const rows = await listQrs(deps.readDb, scope, filters, page.after, page.size + 1);
      ctx.body = cursorPageOf(rows, page.size, qrSummaryView, { list: 'qrs', key: deps.config.urlSigningKey });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/qrs/invoices',
    access: apiKeyOrBearerRule,
    operationId: 'listInvoices',
    summary:
      'Every CFDI of the merchant (invoices of one or several tickets, global invoices, credit notes, payment complements; refused confirmations too), newest first, by cursor',
    tags: ['Books'],
    parameters: queryParameters(invoiceListQuerySchema),
    responses: {
      200: { description: 'A page; `next_cursor` fetches the next one', content: json('InvoiceSummaryPage') },
      400: errorResponse('Invalid filter or page size, unknown parameter, or a cursor no earlier page gave'),
      404: merchantNotInScope,
    },
    handle: (deps) => async (ctx) => {
      const { query, filters, page } = invoiceListRequest(ctx.query, deps.config.urlSigningKey);
      const scope = await booksScope(deps, ctx, query.merchant_id);
      const rows = await listInvoices(deps.readDb, scope, filters, page.after, page.size + 1);
      ctx.body = cursorPageOf(rows, page.size, invoiceSummaryView, { list: 'invoices', key: deps.config.urlSigningKey });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/qrs/invoices/export',
    access: apiKeyOrBearerRule,
    operationId: 'exportInvoices',
    summary:
      "A period's CFDIs for the accountant, one per line (CSV or JSON lines), streamed: the same filters as the list; stamped ones (cancelled included) unless `status` says otherwise",
    parameters: queryParameters(invoiceExportQuerySchema),
    responses: {
      200: {
        description: 'CSV (RFC 4180, header line, CRLF) or JSON lines; money as decimal text; columns in docs/api.md',
        content: { ...text('text/csv'), ...text('application/jsonl') },
      },
      400: errorResponse('Invalid filter or format, unknown parameter'),
      404: merchantNotInScope,
    },
    handle: (deps) => async (ctx) => {
      const { query, filters } = invoiceExportRequest(ctx.query);
      const scope = await booksScope(deps, ctx, query.merchant_id);
      ctx.type = EXPORT_CONTENT_TYPES[query.format];
      ctx.set('Content-Disposition', `attachment; filename="cfdi-${new Date().toISOString().slice(0, 10)}.${query.format}"`);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = invoiceExportStream(deps.readDb, scope, filters, query.format);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/qrs/invoices/summary',
    access: apiKeyOrBearerRule,
    operationId: 'summarizeInvoices',
    summary:
      "A period of the merchant's books added up, per merchant and issuer: sales and what became of them, CFDIs stamped by type (cancelled apart) with amounts and taxes, credit notes and payment complements against their invoices, and every difference named",
    parameters: queryParameters(invoiceSummaryQuerySchema),
    responses: {
      200: { description: 'One summary per merchant in scope; money as decimal text; `differences` empty when the period adds up', content: json('PeriodSummary') },
      400: errorResponse('Missing or invalid `from`/`to` (or `to` before `from`, or over 366 days), invalid `time_zone`, unknown parameter'),
      404: merchantNotInScope,
    },
    handle: (deps) => async (ctx) => {
      const { query, from, to, timeZone } = invoiceSummaryRequest(ctx.query);
      const scope = await booksScope(deps, ctx, query.merchant_id);
      const merchants = await readPeriodSummary(deps.readDb, { ...scope, from, to, now: new Date() });
      ctx.set('Cache-Control', 'no-store');
      ctx.body = periodSummaryView({ from: query.from, to: query.to, timeZone }, merchants);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/qrs/invoices/exports',
    access: apiKeyOrBearerRule,
    // Validated by requestInvoiceExport after its Idempotency-Key (api/books/request-invoice-export.ts).
    body: jsonParsedOnly,
    operationId: 'createInvoiceExport',
    summary:
      "A period's CFDIs as one ZIP of their stamped XML (and PDF with `include_pdf`), named `<RFC emisor>_<serie><folio>_<UUID>.xml`: built by a job, kept 7 days; the same filters as the CSV export, in the body",
    parameters: [optionalIdempotencyKey('Optional: the same key and body again answers the export it recorded')],
    requestBody: { required: true, content: json('InvoiceExportRequest') },
    responses: {
      202: {
        description: 'Recorded (PENDING) or replayed; follow it at the Location',
        content: { 'application/json': { schema: ref('InvoiceExport'), example: PENDING_EXPORT_EXAMPLE } },
      },
      400: errorResponse('Invalid filter, body or Idempotency-Key'),
      404: merchantNotInScope,
      409: errorResponse('idempotency_key_reused: the key was used with another body'),
      413: errorResponse('Body over the size limit'),
      429: errorResponse(
        '`export_limit_reached`: the account has EXPORTS_IN_PROGRESS_PER_ACCOUNT exports being built (Retry-After 60) or keeps EXPORTS_KEPT_PER_ACCOUNT (Retry-After 3600)',
      ),
      415: errorResponse('Content-Type is not application/json'),
    },
    handle: (deps) => async (ctx) => {
      const row = await requestInvoiceExport(deps, ctx, ctx.state.body, ctx.get('Idempotency-Key') || undefined);
      ctx.status = 202;
      ctx.set('Location', `/v1/qrs/invoices/exports/${row.id}`);
      ctx.body = invoiceExportView(row, linksOf(deps));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/qrs/invoices/exports',
    access: apiKeyOrBearerRule,
    operationId: 'listInvoiceExports',
    summary: 'List the exports these credentials asked for that are still kept, newest first',
    responses: {
      200: {
        description: "The exports (an API key: those it asked for; a bearer token: its account's), each with its period and filters",
        content: json('InvoiceExportList'),
      },
    },
    handle: (deps) => async (ctx) => {
      const rows = await listInvoiceExports(deps.db, exportReader(ctx), EXPORT_LIST_MAX);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { content: rows.map((row) => invoiceExportView(row, linksOf(deps))) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/qrs/invoices/exports/{exportId}',
    access: apiKeyOrBearerRule,
    operationId: 'getInvoiceExport',
    summary: 'Follow an export: its progress (`files_done` of `files_total`), and once READY a signed download link (1 hour, re-issued on every read)',
    responses: {
      200: { description: 'The export', content: json('InvoiceExport') },
      404: errorResponse("No such export for these credentials (an API key sees the exports it asked for; a bearer token its account's), or removed"),
    },
    handle: (deps) => async (ctx) => {
      const row = await findInvoiceExport(deps.db, exportReader(ctx), ctx.params.exportId);
      if (!row || row.expires_at <= new Date()) throw new AppError(404, 'export_not_found', 'No such export for these credentials.');
      ctx.set('Cache-Control', 'no-store');
      ctx.body = invoiceExportView(row, linksOf(deps));
    },
  }),
];
