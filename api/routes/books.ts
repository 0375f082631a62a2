import type { Router } from '@koa/router';
import { cursorPageOf } from '../../shared/platform/keyset-cursor.js';
import { readPeriodSummary } from '../../shared/books/read-period-summary.js';
import { listInvoices, listQrs } from '../../shared/repositories/books.js';
import { managementAccess } from '../access/management-access.js';
import { booksScope, invoiceExportRequest, invoiceListRequest, invoiceSummaryRequest, qrListRequest } from '../books/books-request.js';
import { EXPORT_CONTENT_TYPES, invoiceExportStream } from '../books/export-invoices.js';
import { invoiceSummaryView, qrSummaryView } from '../contract/books/books-view.js';
import { periodSummaryView } from '../contract/books/period-summary-view.js';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { routesWith } from '../routing/api-router.js';
import { AppError } from '../../shared/platform/errors.js';
import { findInvoiceExport, listInvoiceExports } from '../../shared/repositories/invoice-exports.js';
import { exportReader, requestInvoiceExport } from '../books/request-invoice-export.js';
import { invoiceExportView } from '../contract/books/export-view.js';
import { jsonBody } from '../middleware/json-body.js';

/**
 * The merchant's books (issue #32) on qrRoutes' router, before its GET /v1/qrs/{qrId} (which would take
 * "invoices" for a QR id): GET /v1/qrs, GET /v1/qrs/invoices, GET /v1/qrs/invoices/export and
 * GET /v1/qrs/invoices/summary, for the API key
 * (its merchant) or the account's bearer token (its merchants, or one by `merchant_id`). Pages by cursor.
 * POST /v1/qrs/invoices/exports asks for a ZIP of the CFDIs' XML (and PDF), built by a job; GET
 * /v1/qrs/invoices/exports lists the kept ones and GET /v1/qrs/invoices/exports/{exportId} follows one (an API key sees the exports it asked for, a bearer token its account's).
 */
/** The exports GET /v1/qrs/invoices/exports lists: an account keeps at most EXPORTS_KEPT_PER_ACCOUNT (20 by default) anyway. */
const EXPORT_LIST_MAX = 100;

export function registerBookRoutes(router: Router<AppState>, deps: ApiDeps): void {
  const routes = routesWith(router, managementAccess(deps).apiKeyOrBearer);

  routes.get('/', async (ctx) => {
    const { query, filters, page } = qrListRequest(ctx.query, deps.config.urlSigningKey);
    const scope = await booksScope(deps, ctx, query.merchant_id);
    const rows = await listQrs(deps.db, scope, filters, page.after, page.size + 1);
    ctx.body = cursorPageOf(rows, page.size, qrSummaryView, { list: 'qrs', key: deps.config.urlSigningKey });
  });

  routes.get('/invoices', async (ctx) => {
    const { query, filters, page } = invoiceListRequest(ctx.query, deps.config.urlSigningKey);
    const scope = await booksScope(deps, ctx, query.merchant_id);
    const rows = await listInvoices(deps.db, scope, filters, page.after, page.size + 1);
    ctx.body = cursorPageOf(rows, page.size, invoiceSummaryView, { list: 'invoices', key: deps.config.urlSigningKey });
  });

  routes.get('/invoices/export', async (ctx) => {
    const { query, filters } = invoiceExportRequest(ctx.query);
    const scope = await booksScope(deps, ctx, query.merchant_id);
    ctx.type = EXPORT_CONTENT_TYPES[query.format];
    ctx.set('Content-Disposition', `attachment; filename="cfdi-${new Date().toISOString().slice(0, 10)}.${query.format}"`);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = invoiceExportStream(deps.db, scope, filters, query.format);
  });

  routes.get('/invoices/summary', async (ctx) => {
    const { query, from, to, timeZone } = invoiceSummaryRequest(ctx.query);
    const scope = await booksScope(deps, ctx, query.merchant_id);
    const merchants = await readPeriodSummary(deps.db, { ...scope, from, to, now: new Date() });
    ctx.set('Cache-Control', 'no-store');
    ctx.body = periodSummaryView({ from: query.from, to: query.to, timeZone }, merchants);
  });

  const links = { publicBaseUrl: deps.config.publicBaseUrl, urlSigningKey: deps.config.urlSigningKey };

  routes.post('/invoices/exports', jsonBody(deps.config.jsonBodyLimit), async (ctx) => {
    const row = await requestInvoiceExport(deps, ctx, ctx.request.body, ctx.get('Idempotency-Key') || undefined);
    ctx.status = 202;
    ctx.set('Location', `/v1/qrs/invoices/exports/${row.id}`);
    ctx.body = invoiceExportView(row, links);
  });

  routes.get('/invoices/exports', async (ctx) => {
    const rows = await listInvoiceExports(deps.db, exportReader(ctx), EXPORT_LIST_MAX);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { content: rows.map((row) => invoiceExportView(row, links)) };
  });

  routes.get('/invoices/exports/:exportId', async (ctx) => {
    const row = await findInvoiceExport(deps.db, exportReader(ctx), ctx.params.exportId ?? '');
    if (!row || row.expires_at <= new Date()) throw new AppError(404, 'export_not_found', 'No such export for these credentials.');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = invoiceExportView(row, links);
  });
}
