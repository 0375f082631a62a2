import type { Router } from '@koa/router';
import { AppError } from '../../shared/platform/errors.js';
import { invoiceFile } from '../../shared/invoices/invoice-file.js';
import { verifyInvoiceFileUrl, type InvoiceFileKind } from '../../shared/invoices/invoice-links.js';
import { cancelInvoiceRequestSchema } from '../contract/invoices/cancellation-schema.js';
import { cancellationView } from '../contract/invoices/cancellation-view.js';
import { latestCancellation } from '../../shared/repositories/invoice-cancellations.js';
import { findInvoiceByUuid, type InvoiceRow } from '../../shared/repositories/invoices.js';
import type { StoredFile } from '../../shared/platform/storage/file-store.js';
import { validator } from '../../shared/platform/validation/ajv.js';
import { cancelInvoice, type InvoiceScope } from '../invoices/cancel-invoice.js';
import { jsonBody } from '../middleware/json-body.js';
import type { AppContext, AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { managementAccess } from '../access/management-access.js';
import { PUBLIC_ACCESS } from '../access/public-access.js';
import { apiRouter, routesWith } from '../routing/api-router.js';

const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

const validateCancel = validator(cancelInvoiceRequestSchema);

function notReady(kind: InvoiceFileKind): AppError {
  return new AppError(503, 'file_not_ready', `The ${kind.toUpperCase()} is being generated; try again in a few seconds.`, { headers: { 'Retry-After': '2' } });
}

/**
 * Invoice files and cancellation. For the merchant (X-API-Key, or the account's Bearer token): InvoiceXmlResponse /
 * InvoicePdfResponse with the content in Base64. For the buyer: xml_url / pdf_url, signed, no credentials.
 */
export function invoiceRoutes(deps: ApiDeps): Router<AppState> {
  const router = apiRouter();
  const files = deps.files;
  const rendering = { db: deps.db, files, catalogs: deps.catalogs, publicBaseUrl: deps.config.publicBaseUrl };

  const routes = routesWith(router, managementAccess(deps).apiKeyOrBearer);
  const linked = routesWith(router, PUBLIC_ACCESS);
  const scopeOf = (ctx: AppContext): InvoiceScope => (ctx.state.apiKey ? { merchantId: ctx.state.apiKey.merchantId } : { accountId: ctx.state.accountId! });
  const notFound = (uuid: string) => new AppError(404, 'invoice_not_found', `No invoice with UUID ${uuid} for these credentials.`);
  const invoiceOf = async (ctx: AppContext) => {
    const uuid = ctx.params.uuid ?? '';
    const invoice = UUID.test(uuid) ? await findInvoiceByUuid(deps.db, uuid, scopeOf(ctx)) : undefined;
    if (!invoice) throw notFound(uuid);
    return invoice;
  };
  const fileAnswer = (uuid: string | null, fileName: string, file: StoredFile) => ({
    uuid,
    file_name: fileName,
    content_type: file.contentType,
    content: file.data.toString('base64'),
  });
  const download = (kind: InvoiceFileKind) => async (ctx: AppContext) => {
    const invoice = await invoiceOf(ctx);
    const found = await invoiceFile(rendering, invoice, kind);
    if (!found.ok) throw notReady(kind);
    ctx.body = fileAnswer(invoice.uuid, found.fileName, found.file);
  };
  routes.get('/v1/qrs/invoices/uuid/:uuid/xml', download('xml'));
  routes.get('/v1/qrs/invoices/uuid/:uuid/pdf', download('pdf'));

  routes.delete('/v1/qrs/invoices/:uuid', jsonBody(deps.config.jsonBodyLimit), async (ctx) => {
    const request = validateCancel(ctx.request.body);
    const uuid = ctx.params.uuid ?? '';
    if (!UUID.test(uuid)) throw notFound(uuid);
    const answer = await cancelInvoice(deps, scopeOf(ctx), uuid, request);
    ctx.status = answer.status;
    ctx.body = answer.body;
  });

  routes.get('/v1/qrs/invoices/uuid/:uuid/cancellation', async (ctx) => {
    const invoice = await invoiceOf(ctx);
    const cancellation = await latestCancellation(deps.db, invoice.id);
    if (!cancellation) throw new AppError(404, 'cancellation_not_found', 'No cancellation was requested for this invoice.');
    ctx.body = cancellationView(invoice.uuid ?? '', invoice.status, cancellation);
  });

  routes.get('/v1/qrs/invoices/uuid/:uuid/cancellation-acuse', async (ctx) => {
    const invoice = await invoiceOf(ctx);
    const key = (await latestCancellation(deps.db, invoice.id))?.acuse_file_key;
    const file = key ? await files.get(key) : undefined;
    if (!file) throw new AppError(404, 'acuse_not_found', 'SAT has not acknowledged a cancellation of this invoice (yet).');
    ctx.body = fileAnswer(invoice.uuid, `${invoice.uuid}-acuse-cancelacion.xml`, file);
  });

  linked.get('/v1/public/invoices/:file', async (ctx) => {
    const match = /^([0-9A-F-]{36})\.(xml|pdf)$/.exec(ctx.params.file ?? '');
    const uuid = match?.[1] ?? '';
    const kind = (match?.[2] ?? 'xml') as InvoiceFileKind;
    const check = match ? verifyInvoiceFileUrl(uuid, kind, ctx.query.exp, ctx.query.sig, deps.config.urlSigningKey) : ({ ok: false, reason: 'bad_signature' } as const);
    if (!check.ok) {
      throw check.reason === 'expired'
        ? new AppError(410, 'link_expired', 'This invoice link has expired; open the page of your ticket (with your RFC) or the e-mail again for a new one.')
        : new AppError(403, 'invalid_signature', 'This invoice link is not valid.');
    }
    const invoice = (await deps.db('invoices').where({ uuid }).first()) as InvoiceRow | undefined;
    if (!invoice) throw new AppError(404, 'invoice_not_found', 'No such invoice.');
    const found = await invoiceFile(rendering, invoice, kind);
    if (!found.ok) throw notReady(kind);
    ctx.set('Content-Disposition', `${ctx.query.download === '1' ? 'attachment' : 'inline'}; filename="${found.fileName}"`);
    ctx.set('Cache-Control', 'private, max-age=86400');
    ctx.type = found.file.contentType;
    ctx.body = found.file.data;
  });

  return router;
}
