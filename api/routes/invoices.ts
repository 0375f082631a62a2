import { Router } from '@koa/router';
import { AppError } from '../../shared/errors.js';
import { invoiceFile } from '../../shared/invoices/invoice-file.js';
import { verifyInvoiceFileUrl, type InvoiceFileKind } from '../../shared/invoices/invoice-links.js';
import { findInvoiceByUuid } from '../../shared/repositories/invoices.js';
import type { AppContext, AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { merchantOrAccountAuth } from '../middleware/merchant-or-account-auth.js';

const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

function notReady(kind: InvoiceFileKind): AppError {
  return new AppError(503, 'file_not_ready', `The ${kind.toUpperCase()} is being generated; try again in a few seconds.`, { headers: { 'Retry-After': '2' } });
}

/**
 * Invoice files. For the merchant (X-API-Key, or the account's Bearer token): InvoiceXmlResponse /
 * InvoicePdfResponse with the content in Base64. For the buyer: xml_url / pdf_url, signed, no credentials.
 */
export function invoiceRoutes(deps: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  const files = deps.files;

  const auth = merchantOrAccountAuth(deps.db);
  const download = (kind: InvoiceFileKind) => async (ctx: AppContext) => {
    const uuid = ctx.params.uuid ?? '';
    const scope = ctx.state.apiKey ? { merchantId: ctx.state.apiKey.merchantId } : { accountId: ctx.state.accountId! };
    const invoice = UUID.test(uuid) ? await findInvoiceByUuid(deps.db, uuid, scope) : undefined;
    if (!invoice) throw new AppError(404, 'invoice_not_found', `No invoice with UUID ${uuid} for these credentials.`);
    const found = await invoiceFile(files, invoice, kind);
    if (!found.ok) throw notReady(kind);
    ctx.body = { uuid: invoice.uuid, file_name: found.fileName, content_type: found.file.contentType, content: found.file.data.toString('base64') };
  };
  router.get('/v1/qrs/invoices/uuid/:uuid/xml', auth, download('xml'));
  router.get('/v1/qrs/invoices/uuid/:uuid/pdf', auth, download('pdf'));

  router.get('/v1/public/invoices/:file', async (ctx) => {
    const match = /^([0-9A-F-]{36})\.(xml|pdf)$/.exec(ctx.params.file ?? '');
    const uuid = match?.[1] ?? '';
    const kind = (match?.[2] ?? 'xml') as InvoiceFileKind;
    if (!match || !verifyInvoiceFileUrl(uuid, kind, ctx.query.sig, deps.config.urlSigningKey)) throw new AppError(403, 'invalid_signature', 'This invoice link is not valid.');
    const invoice = await deps.db('invoices').where({ uuid }).first();
    if (!invoice) throw new AppError(404, 'invoice_not_found', 'No such invoice.');
    const found = await invoiceFile(files, invoice, kind);
    if (!found.ok) throw notReady(kind);
    ctx.set('Content-Disposition', `${ctx.query.download === '1' ? 'attachment' : 'inline'}; filename="${found.fileName}"`);
    ctx.set('Cache-Control', 'private, max-age=86400');
    ctx.type = found.file.contentType;
    ctx.body = found.file.data;
  });

  return router;
}
