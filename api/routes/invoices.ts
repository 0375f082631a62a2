import { AppError } from '../../shared/platform/errors.js';
import { invoiceFile } from '../../shared/invoices/invoice-file.js';
import { verifyInvoiceFileUrl, type InvoiceFileKind } from '../../shared/invoices/invoice-links.js';
import { cancelInvoiceRequestSchema } from '../contract/invoices/cancellation-schema.js';
import { cancellationView } from '../contract/invoices/cancellation-view.js';
import { latestCancellation } from '../../shared/repositories/invoice-cancellations.js';
import { findInvoiceByUuid, type InvoiceRow } from '../../shared/repositories/invoices.js';
import type { StoredFile } from '../../shared/platform/storage/file-store.js';
import { cancelInvoice } from '../invoices/cancel-invoice.js';
import type { AppContext } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { apiKeyOrBearerRule, credentialsScope, signedLinkRule, type ApiKeyOrBearerGrant } from '../access/access-rules.js';
import { binary, errorResponse, json } from '../routing/openapi-parts.js';
import { jsonRequest } from '../routing/request-body.js';
import { defineRoute } from '../routing/route.js';

const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

function notReady(kind: InvoiceFileKind): AppError {
  return new AppError(503, 'file_not_ready', `The ${kind.toUpperCase()} is being generated; try again in a few seconds.`, { headers: { 'Retry-After': '2' } });
}

type InvoiceCtx = { state: ApiKeyOrBearerGrant; params: { uuid: string } };

const renderingOf = (deps: ApiDeps) => ({ db: deps.db, files: deps.files, catalogs: deps.catalogs, publicBaseUrl: deps.config.publicBaseUrl });
const notFound = (uuid: string) => new AppError(404, 'invoice_not_found', `No invoice with UUID ${uuid} for these credentials.`);

async function invoiceOf(deps: ApiDeps, ctx: InvoiceCtx): Promise<InvoiceRow> {
  const uuid = ctx.params.uuid;
  const invoice = UUID.test(uuid) ? await findInvoiceByUuid(deps.db, uuid, credentialsScope(ctx.state)) : undefined;
  if (!invoice) throw notFound(uuid);
  return invoice;
}

const fileAnswer = (uuid: string | null, fileName: string, file: StoredFile) => ({
  uuid,
  file_name: fileName,
  content_type: file.contentType,
  content: file.data.toString('base64'),
});

const download = (kind: InvoiceFileKind) => (deps: ApiDeps) => async (ctx: AppContext & InvoiceCtx) => {
  const invoice = await invoiceOf(deps, ctx);
  const found = await invoiceFile(renderingOf(deps), invoice, kind);
  if (!found.ok) throw notReady(kind);
  ctx.body = fileAnswer(invoice.uuid, found.fileName, found.file);
};

/**
 * Invoice files and cancellation. For the merchant (X-API-Key, or the account's Bearer token): InvoiceXmlResponse /
 * InvoicePdfResponse with the content in Base64. For the buyer: xml_url / pdf_url, signed, no credentials.
 */
export const invoiceRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/qrs/invoices/uuid/{uuid}/xml',
    access: apiKeyOrBearerRule,
    operationId: 'getInvoiceXml',
    summary: 'The stamped CFDI XML by fiscal UUID, in Base64 (InvoiceXmlResponse)',
    responses: {
      200: { description: 'The XML', content: json('InvoiceXmlResponse') },
      404: errorResponse('No such invoice for these credentials'),
    },
    handle: download('xml'),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/qrs/invoices/uuid/{uuid}/pdf',
    access: apiKeyOrBearerRule,
    operationId: 'getInvoicePdf',
    summary: "The CFDI's printed PDF by fiscal UUID, in Base64 (InvoicePdfResponse)",
    responses: {
      200: { description: 'The PDF', content: json('InvoicePdfResponse') },
      404: errorResponse('No such invoice for these credentials'),
      503: errorResponse('The PDF is still being rendered (Retry-After)'),
    },
    handle: download('pdf'),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/qrs/invoices/{uuid}',
    access: apiKeyOrBearerRule,
    body: jsonRequest(cancelInvoiceRequestSchema),
    operationId: 'cancelInvoice',
    summary: 'Cancel a stamped CFDI by fiscal UUID: says whether SAT cancels at once or asks the receptor, then sends it to the PAC',
    requestBody: { required: true, content: json('CancelInvoiceRequest') },
    responses: {
      200: { description: 'Already cancelled under this same request', content: json('InvoiceCancellation') },
      202: { description: 'Recorded and being sent (or already in process under this same request); follow it at …/cancellation', content: json('InvoiceCancellation') },
      400: errorResponse('Invalid body: unknown motive, motive 01 without substitution_uuid, substitution_uuid with another motive'),
      404: errorResponse('No such invoice for these credentials'),
      409: errorResponse('cancellation_conflict: already cancelling or cancelled under another request; related_cfdis_active: credit notes or payment complements relate to it'),
      422: errorResponse(
        'substitution_invalid (motive 01: the replacement is unknown, not stamped, of another issuer or not related with TipoRelacion 04), cancellation_period_over',
      ),
    },
    handle: (deps) => async (ctx) => {
      const request = ctx.state.body;
      const uuid = ctx.params.uuid;
      if (!UUID.test(uuid)) throw notFound(uuid);
      const answer = await cancelInvoice(deps, credentialsScope(ctx.state), uuid, request);
      ctx.status = answer.status;
      ctx.body = answer.body;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/qrs/invoices/uuid/{uuid}/cancellation',
    access: apiKeyOrBearerRule,
    operationId: 'getInvoiceCancellation',
    summary: 'The latest cancellation request of a CFDI and where it stands',
    responses: {
      200: { description: 'The request', content: json('InvoiceCancellation') },
      404: errorResponse('No such invoice, or no cancellation requested'),
    },
    handle: (deps) => async (ctx) => {
      const invoice = await invoiceOf(deps, ctx);
      const cancellation = await latestCancellation(deps.db, invoice.id);
      if (!cancellation) throw new AppError(404, 'cancellation_not_found', 'No cancellation was requested for this invoice.');
      ctx.body = cancellationView(invoice.uuid ?? '', invoice.status, cancellation);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/qrs/invoices/uuid/{uuid}/cancellation-acuse',
    access: apiKeyOrBearerRule,
    operationId: 'getInvoiceCancellationAcuse',
    summary: "SAT's acknowledgement (acuse) of the cancellation request, in Base64 (same shape as InvoiceXmlResponse)",
    responses: {
      200: { description: 'The acuse XML', content: json('InvoiceXmlResponse') },
      404: errorResponse('No such invoice, or no acuse yet'),
    },
    handle: (deps) => async (ctx) => {
      const invoice = await invoiceOf(deps, ctx);
      const key = (await latestCancellation(deps.db, invoice.id))?.acuse_file_key;
      const file = key ? await deps.files.get(key) : undefined;
      if (!file) throw new AppError(404, 'acuse_not_found', 'SAT has not acknowledged a cancellation of this invoice (yet).');
      ctx.body = fileAnswer(invoice.uuid, `${invoice.uuid}-acuse-cancelacion.xml`, file);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/public/invoices/{file}',
    access: signedLinkRule({
      verify: (params, query, key) => {
        const match = /^([0-9A-F-]{36})\.(xml|pdf)$/.exec(params.file ?? '');
        if (!match) return undefined;
        const file = { uuid: match[1]!, kind: match[2] as InvoiceFileKind };
        return { subject: file, check: verifyInvoiceFileUrl(file.uuid, file.kind, query.exp, query.sig, key) };
      },
      expired: () => new AppError(410, 'link_expired', 'This invoice link has expired; open the page of your ticket (with your RFC) or the e-mail again for a new one.'),
      invalid: 'This invoice link is not valid.',
    }),
    operationId: 'downloadInvoiceFile',
    summary: 'Buyer: the invoice XML or PDF through its signed link (xml_url, pdf_url); `download=1` to save it',
    responses: {
      200: { description: 'The XML or the PDF', content: binary('application/xml', 'application/pdf') },
      410: errorResponse('`link_expired`: past its `exp` (1 hour for links on a page or in an API answer, 7 days in the e-mail)'),
      503: errorResponse('PDF not rendered yet'),
    },
    handle: (deps) => async (ctx) => {
      const { uuid, kind } = ctx.state.signedLink;
      const invoice = (await deps.db('invoices').where({ uuid }).first()) as InvoiceRow | undefined;
      if (!invoice) throw new AppError(404, 'invoice_not_found', 'No such invoice.');
      const found = await invoiceFile(renderingOf(deps), invoice, kind);
      if (!found.ok) throw notReady(kind);
      ctx.set('Content-Disposition', `${ctx.query.download === '1' ? 'attachment' : 'inline'}; filename="${found.fileName}"`);
      ctx.set('Cache-Control', 'private, max-age=86400');
      ctx.type = found.file.contentType;
      ctx.body = found.file.data;
    },
  }),
];
