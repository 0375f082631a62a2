/**
 * The machine-readable contract (OpenAPI 3.1), built from the very schema objects ajv validates with,
 * so the document cannot drift from what the API accepts. Served at GET /openapi.json.
 */
import { tokenRequestSchema, tokenResponseSchema } from './contract/auth/token-request-schema.js';
import { errorDetailSchema } from './contract/document-view-schema.js';
import { createIssuerSchema, issuerSchema, issuerSyncAcceptedSchema } from './contract/issuers/issuer-schema.js';
import {
  createMerchantSchema,
  invoiceModeResponseSchema,
  merchantCreatedSchema,
  merchantSchema,
  merchantSummarySchema,
  regeneratedApiKeySchema,
  updateMerchantSchema,
} from './contract/merchants/merchant-schema.js';
import { pageSchema } from '../shared/platform/pagination.js';
import { createMerchantProductSchema, merchantProductResponseSchema, updateMerchantProductSchema } from './contract/products/product-schema.js';
import { qrCreateRequestSchema } from './contract/qrs/qr-request-schema.js';
import {
  createOfflineKeySchema,
  offlineClaimListSchema,
  offlineKeyCreatedSchema,
  offlineKeyListSchema,
  offlineKeySchema,
  revokeOfflineKeySchema,
} from './contract/offline/offline-key-schema.js';
import { qrTransactionSchema } from './contract/qrs/qr-transaction-schema.js';
import { createCreditNoteSchema, creditNoteSchema } from './contract/credit-notes/credit-note-schema.js';
import { createPaymentComplementSchema, paymentComplementSchema } from './contract/payment-complements/payment-complement-schema.js';
import { cursorPageSchema, invoiceSummarySchema, qrSummarySchema } from './contract/books/books-schema.js';
import { periodSummarySchema } from './contract/books/period-summary-schema.js';
import { invoiceExportListSchema, invoiceExportRequestSchema, invoiceExportSchema } from './contract/books/export-schema.js';
import { globalInvoiceSchema, globalPeriodicityRequestSchema, reportGlobalRequestSchema } from './contract/global-invoices/global-invoice-schema.js';
import { createEndpointRequestSchema, webhookDeliverySchema, webhookEndpointSchema } from './contract/webhooks/endpoint-schema.js';
import { cancelInvoiceRequestSchema, invoiceCancellationSchema } from './contract/invoices/cancellation-schema.js';
import { confirmRequestSchema, emailRequestSchema, previewRequestSchema, ticketsRequestSchema } from './contract/buyer/customer-schema.js';
import { offlineClaimRequestSchema, offlineClaimSchema } from './contract/buyer/offline-claim-schema.js';
import { buyerInvoiceFilesSchema, invoiceFilesRequestSchema } from './contract/buyer/invoice-files-schema.js';
import { invoiceQrsRequestSchema } from './contract/qrs/invoice-qrs-schema.js';
import { legacyQrCreatedSchema, legacyQrCreateRequestSchema, legacyQrResolvedSchema } from './contract/legacy/legacy-qr-schema.js';
import {
  buyerConfirmationSchema,
  buyerInvoiceSchema,
  buyerPreviewSchema,
  buyerQrStatusSchema,
  buyerSaleSchema,
  csfPrefillSchema,
  emailQueuedSchema,
  invoiceQrsAcceptedSchema,
  invoiceQrsDryRunSchema,
  qrLinkSchema,
  ticketsReviewSchema,
  ticketSummarySchema,
} from './contract/buyer/buyer-answer-schemas.js';
import { withExamples } from './openapi-examples.js';
import { operationIdOf } from './openapi-operation-ids.js';
import { formBody, formSchemas, withFormSamples } from './openapi-forms.js';
import { withTags } from './openapi-tags.js';
import { healthSchema, serviceLinksSchema } from './contract/service/service-answer-schemas.js';
import { errorResponse, json, qrLinkQuery, ref, text } from './routing/openapi-parts.js';
import { documentedPaths, mergedPaths } from './routing/openapi-paths.js';
import type { Route } from './routing/route.js';

const invoiceFileSchema = (kind: string) => ({
  type: 'object',
  required: ['uuid', 'file_name', 'content_type', 'content'],
  properties: {
    uuid: { type: 'string', description: 'Fiscal folio (CFDI UUID)' },
    file_name: { type: 'string', description: `<UUID>.${kind}` },
    content_type: { type: 'string', description: kind === 'xml' ? 'application/xml' : 'application/pdf' },
    content: { type: 'string', contentEncoding: 'base64', description: `The ${kind.toUpperCase()} in Base64` },
  },
});

const errorSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'details', 'request_id'],
      description: 'Some errors carry further members, named in their description (e.g. `invoice` of an invoiced QR)',
      properties: {
        code: { type: 'string', description: 'Stable, snake_case: what to branch on' },
        message: { type: 'string', description: 'For people; may change' },
        details: { type: 'array', items: errorDetailSchema, description: 'One item per field and problem; empty when no field is at fault' },
        request_id: { type: 'string', description: 'Also in the X-Request-Id header: quote it to support' },
      },
    },
  },
} as const;

const pathParams = (...names: string[]) => names.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

type Operation = { operationId?: string; security?: unknown; summary?: string; description?: string };

/** A title Redoc shows as plain text (it renders `description` as Markdown, never `summary`). */
const SUMMARY_MAX = 90;

/**
 * An operation's title: its summary up to the first `:` or `;` (or SUMMARY_MAX characters), without Markdown;
 * the whole text, when it says more, goes to the description, where Markdown renders (issue #39: raw
 * backticks in long titles).
 */
function titled(op: Operation): void {
  const full = op.summary;
  if (full === undefined) return;
  let title = full.split(/[:;] /)[0]!.replaceAll('`', '');
  if (title.length > SUMMARY_MAX) title = `${title.slice(0, title.lastIndexOf(' ', SUMMARY_MAX - 1))}…`;
  if (title === full) return;
  op.summary = title;
  op.description = op.description === undefined ? full : `${full}\n\n${op.description}`;
}

/** Every operation named and titled, and the public ones marked as such (`security: []`), as OpenAPI linters expect. */
function withOperationIds<D extends { paths: Record<string, Record<string, unknown>> }>(doc: D): D {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method] as Operation | undefined;
      if (!op) continue;
      const id = operationIdOf(method, path);
      if (id !== undefined) op.operationId ??= id;
      op.security ??= [];
      titled(op);
    }
  }
  return doc;
}

/**
 * Component schemas without `$id`: ajv registers the contract's schemas under their `$id`, but in the document
 * an `$id` would make each schema a resource of its own, where `#/components/schemas/…` does not resolve.
 */
function withoutSchemaIds<D extends { components: { schemas: Record<string, object> } }>(doc: D): D {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k, v]) => !(k === '$id' && typeof v === 'string'))
        .map(([k, v]) => [k, strip(v)]),
    );
  };
  return { ...doc, components: { ...doc.components, schemas: strip(doc.components.schemas) as D['components']['schemas'] } };
}

/**
 * The document as served at `now`: its examples' dates are relative to it (an expiry a few days ahead, a
 * payment received now), so a sample copied from /docs is accepted whenever it is copied.
 */
export function openApiDocumentOf(routes: readonly Route[], publicBaseUrl: string, now: Date = new Date()) {
  return withTags(withFormSamples(withExamples(withOperationIds(withoutSchemaIds(rawDocument(routes, publicBaseUrl))), now)));
}

function rawDocument(routes: readonly Route[], publicBaseUrl: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Self-invoicing QR service',
      version: '1.0.0',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      // The HTML comment is where Redoc (GET /docs) lists the security schemes; other renderers show nothing.
      description:
        'POS backends create signed invoicing QRs (API key); buyers self-invoice through the public routes (the signed QR link is the capability); accounts manage issuers, merchants and products (bearer token).\n\nErrors are `{ "error": { "code", "message", "details", "request_id" } }` (schema `Error`).\n\n# Authentication\n\n<!-- ReDoc-Inject: <security-definitions> -->',
    },
    servers: [{ url: publicBaseUrl }],
    components: {
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: "A merchant's (point of sale's) API key: the first comes with POST /v1/qrs/merchants, PUT /v1/qrs/merchants/{merchantId}/api-key/regenerate replaces it",
        },
        Bearer: { type: 'http', scheme: 'bearer', description: 'An access token from POST /v1/auth/token' },
        MetricsToken: { type: 'http', scheme: 'bearer', description: "The operators' METRICS_TOKEN (what Prometheus presents)" },
        OperatorLogin: {
          type: 'http',
          scheme: 'basic',
          description: "The operator's ADMIN_USER and password (ADMIN_PASSWORD_HASH): the status page's and the queue dashboard's login",
        },
      },
      schemas: {
        QrCreateRequest: qrCreateRequestSchema,
        QrTransaction: qrTransactionSchema,
        Error: errorSchema,
        Merchant: merchantSchema,
        MerchantCreated: merchantCreatedSchema,
        MerchantSummary: merchantSummarySchema,
        MerchantSummaryPage: pageSchema(ref('MerchantSummary'), 'Page envelope of MerchantSummary'),
        InvoiceModeResponse: invoiceModeResponseSchema,
        RegeneratedApiKey: regeneratedApiKeySchema,
        CreateOfflineKeyRequest: createOfflineKeySchema,
        RevokeOfflineKeyRequest: revokeOfflineKeySchema,
        OfflineKey: offlineKeySchema,
        OfflineKeyCreated: offlineKeyCreatedSchema,
        OfflineKeyList: offlineKeyListSchema,
        OfflineClaimList: offlineClaimListSchema,
        MerchantProductResponse: merchantProductResponseSchema,
        MerchantProductList: { type: 'array', items: ref('MerchantProductResponse'), description: 'The products created, in the order sent' },
        MerchantProductPage: pageSchema(ref('MerchantProductResponse'), 'Page envelope of MerchantProductResponse'),
        IssuerPage: pageSchema(ref('Issuer'), 'Page envelope of Issuer'),
        IssuerSyncAccepted: issuerSyncAcceptedSchema,
        CreditNote: creditNoteSchema,
        PaymentComplement: paymentComplementSchema,
        GlobalInvoice: globalInvoiceSchema,
        QrSummary: qrSummarySchema,
        QrSummaryPage: cursorPageSchema(ref('QrSummary'), 'Cursor page of QrSummary, newest first'),
        InvoiceSummary: invoiceSummarySchema,
        InvoiceSummaryPage: cursorPageSchema(ref('InvoiceSummary'), 'Cursor page of InvoiceSummary, newest first'),
        PeriodSummary: periodSummarySchema,
        InvoiceExportRequest: invoiceExportRequestSchema,
        InvoiceExport: invoiceExportSchema,
        InvoiceExportList: invoiceExportListSchema,
        GlobalInvoiceList: {
          type: 'object',
          additionalProperties: false,
          required: ['items'],
          properties: { items: { type: 'array', items: ref('GlobalInvoice') } },
        },
        GlobalInvoicePage: pageSchema(ref('GlobalInvoice'), 'Page envelope of GlobalInvoice, newest period first'),
        WebhookEndpointList: {
          type: 'object',
          additionalProperties: false,
          required: ['items'],
          properties: { items: { type: 'array', items: ref('WebhookEndpoint') } },
        },
        WebhookDelivery: webhookDeliverySchema,
        WebhookDeliveryPage: pageSchema(ref('WebhookDelivery'), 'Page envelope of WebhookDelivery, newest first'),
        BuyerSale: buyerSaleSchema,
        BuyerConfirmation: buyerConfirmationSchema,
        BuyerInvoice: buyerInvoiceSchema,
        BuyerInvoiceFiles: buyerInvoiceFilesSchema,
        BuyerInvoiceFilesRequest: invoiceFilesRequestSchema,
        BuyerPreview: buyerPreviewSchema,
        TicketSummary: ticketSummarySchema,
        TicketsReview: ticketsReviewSchema,
        InvoiceQrsDryRun: invoiceQrsDryRunSchema,
        InvoiceQrsAccepted: invoiceQrsAcceptedSchema,
        BuyerQrStatus: buyerQrStatusSchema,
        EmailQueued: emailQueuedSchema,
        QrLink: qrLinkSchema,
        CsfPrefill: csfPrefillSchema,
        Health: healthSchema,
        ServiceLinks: serviceLinksSchema,
        TokenRequest: tokenRequestSchema,
        TokenResponse: tokenResponseSchema,
        CreateIssuerRequest: createIssuerSchema,
        Issuer: issuerSchema,
        CreateMerchantRequest: createMerchantSchema,
        UpdateMerchantRequest: updateMerchantSchema,
        CreateMerchantProductRequest: createMerchantProductSchema,
        UpdateMerchantProductRequest: updateMerchantProductSchema,
        PreviewQrRequest: previewRequestSchema,
        ConfirmQrRequest: confirmRequestSchema,
        ReviewTicketsRequest: ticketsRequestSchema,
        InvoiceQrsRequest: invoiceQrsRequestSchema,
        EmailInvoiceRequest: emailRequestSchema,
        OfflineClaimRequest: offlineClaimRequestSchema,
        OfflineClaim: offlineClaimSchema,
        InvoiceXmlResponse: invoiceFileSchema('xml'),
        InvoicePdfResponse: invoiceFileSchema('pdf'),
        CancelInvoiceRequest: cancelInvoiceRequestSchema,
        InvoiceCancellation: invoiceCancellationSchema,
        WebhookEndpointRequest: createEndpointRequestSchema,
        GlobalPeriodicityRequest: globalPeriodicityRequestSchema,
        GlobalInvoiceRequest: reportGlobalRequestSchema,
        CreditNoteRequest: createCreditNoteSchema,
        PaymentComplementRequest: createPaymentComplementSchema,
        WebhookEndpoint: webhookEndpointSchema,
        LegacyQrCreateRequest: legacyQrCreateRequestSchema,
        LegacyQrCreated: legacyQrCreatedSchema,
        LegacyQrResolved: legacyQrResolvedSchema,
        ...formSchemas(),
      },
    },
    paths: mergedPaths(pathTable(), documentedPaths(routes)),
  };
}

/** The operations not declared yet (issue #42): each moves to its route's declaration. */
function pathTable() {
  return {
    '/v1/public/qrs/resolve': {
      get: {
        summary: 'Buyer: what to review (the first resolve moves PENDING to SCANNED)',
        parameters: qrLinkQuery,
        responses: {
          200: { description: 'Merchant, issuer, concepts, taxes, totals, expiry and the state of any confirmation', content: json('BuyerSale') },
          400: errorResponse('Bad signature or version'),
          404: errorResponse('Unknown QR'),
          409: errorResponse('`qr_already_invoiced`, with `invoice` (`uuid`, `issued_at`, …; no files: POST /v1/public/qrs/invoice-files with the buyer’s RFC)'),
          410: errorResponse(
            "Expired (`qr_expired`), cancelled before any invoice (`qr_cancelled`), or its invoice cancelled (`invoice_cancelled`, with `invoice`: `uuid`, `issued_at`, `cancelled_at` the acuse's date)",
          ),
          422: errorResponse('`store_inactive`: the store or its issuer cannot invoice now'),
          429: errorResponse('Rate limited'),
        },
      },
    },
    '/v1/public/qrs/tickets': {
      post: {
        summary: 'Buyer: add further tickets (short code or QR link) to invoice in the same CFDI; every ticket and the totals of that invoice',
        requestBody: { required: true, content: json('ReviewTicketsRequest') },
        responses: {
          200: { description: '`tickets` (the first one and each further one: store, date, concepts, amount) and `totals`', content: json('TicketsReview') },
          400: errorResponse('Invalid body or link'),
          409: errorResponse('`qr_already_invoiced`: the first ticket is already invoiced'),
          410: errorResponse('The first ticket expired or was cancelled'),
          422: errorResponse('`tickets_not_combinable`: one detail per further ticket that cannot join (`additional_tickets[i]`)'),
          429: errorResponse('Rate limited (each short code counts as a code lookup)'),
        },
      },
    },
    '/v1/public/qrs/preview': {
      post: {
        summary: 'Buyer: check the tax data and see what confirm would stamp (every ticket, the totals for this buyer), without confirming',
        requestBody: { required: true, content: json('PreviewQrRequest') },
        responses: {
          200: {
            description: '`customer` as it will be written, every ticket with its concepts, `totals`, and the `review_digest` that confirm must carry',
            content: json('BuyerPreview'),
          },
          400: errorResponse('Invalid body'),
          409: errorResponse('`qr_already_invoiced`: the sale is already invoiced'),
          410: errorResponse('Expired or cancelled'),
          422: errorResponse('`customer_invalid`: tax data to correct, per field; or `tickets_not_combinable` for `additional_tickets`'),
          429: errorResponse('Rate limited (per IP, and per QR for the body’s `t`)'),
        },
      },
    },
    '/v1/public/qrs/confirm': {
      post: {
        summary: 'Buyer: confirm once what the preview showed (its `review_digest`); the CFDI is sealed and stamped in the background',
        requestBody: { required: true, content: json('ConfirmQrRequest') },
        responses: {
          202: { description: 'Accepted: `status` STAMPING; poll /v1/public/qrs/status', content: json('BuyerConfirmation') },
          400: errorResponse('Invalid body or link (`review_digest` missing: preview first)'),
          409: errorResponse(
            '`review_outdated`: what would be stamped now (tickets, concepts, customer or totals) differs from the preview whose `review_digest` was sent; `review` is the new preview answer (show it, then confirm with its `review_digest`); nothing recorded. `already_confirmed` (with `confirmation`): confirmed with other data; `qr_already_invoiced`',
          ),
          410: errorResponse('Expired or cancelled'),
          422: errorResponse('`customer_invalid`: tax data to correct, per field (`source` service); or `tickets_not_combinable` for `additional_tickets`'),
          429: errorResponse('Rate limited'),
        },
      },
    },
    '/v1/public/qrs/offline-claim': {
      post: {
        summary:
          "Buyer: leave tax data and e-mail on an offline ticket whose sale the store has not sent yet (its link's v=2 parameters); the invoice is stamped and e-mailed when the sale arrives, or the buyer is told why not",
        requestBody: { required: true, content: json('OfflineClaimRequest') },
        responses: {
          202: { description: 'WAITING: kept until the sale arrives (send again to correct the data while it waits)', content: json('OfflineClaim') },
          400: errorResponse('Invalid body, or a link not signed by a known offline key (`invalid_signature`)'),
          409: errorResponse(
            '`offline_sale_arrived` (invoice it from its page: `qr_content`), `offline_claim_taken` (another buyer holds this ticket: only their `claim_token` corrects it), or `offline_claim_settled`',
          ),
          410: errorResponse('`offline_ticket_closed`: the window passed or the key was revoked'),
          422: errorResponse('`customer_invalid` with details, or `store_inactive`'),
          429: errorResponse('Rate limited'),
        },
      },
    },
    '/v1/public/qrs/email': {
      post: {
        summary: "Buyer: send the invoice (XML and PDF) by e-mail again, to the confirmation's address, or another one with the buyer's RFC",
        requestBody: { required: true, content: json('EmailInvoiceRequest') },
        responses: {
          202: { description: 'Queued; `to` is the address masked (`j•••@example.com`)', content: json('EmailQueued') },
          400: errorResponse('Invalid body or link'),
          403: errorResponse(
            "Another address without the buyer's RFC (`buyer_rfc_required`), with another RFC (`buyer_rfc_mismatch`), or for an invoice to a generic RFC, which proves nobody (`buyer_rfc_generic`)",
          ),
          409: errorResponse('`invoice_not_ready`: no stamped invoice yet'),
          429: errorResponse('Rate limited, or `email_limit_reached`: EMAIL_SENDS_PER_QR_PER_DAY requests for this QR today (Retry-After)'),
        },
      },
    },
    '/v1/public/qrs/status': {
      get: {
        summary:
          'Buyer: the QR status and its confirmation (STAMPING, REFUSED with the fields to correct, ACTIVE with the invoice’s UUID and date; its files: POST /v1/public/qrs/invoice-files)',
        parameters: qrLinkQuery,
        responses: { 200: { description: 'Status', content: json('BuyerQrStatus') }, 400: errorResponse('Bad link'), 404: errorResponse('Unknown QR') },
      },
    },
    '/v1/public/qrs/invoice-files': {
      post: {
        summary: "Buyer: the invoice's XML and PDF links (valid one hour) for whoever proves the buyer's RFC; the ticket alone only shows that the sale is invoiced",
        requestBody: { required: true, content: json('BuyerInvoiceFilesRequest') },
        responses: {
          200: { description: '`xml_url`, `pdf_url` and when they expire', content: json('BuyerInvoiceFiles') },
          400: errorResponse('Invalid body or link'),
          403: errorResponse('`buyer_rfc_mismatch`: not the RFC on the invoice; `buyer_rfc_generic`: an invoice to a generic RFC (its files are only in the e-mail)'),
          404: errorResponse('Unknown QR'),
          409: errorResponse('`invoice_not_ready`: no stamped invoice (yet)'),
          429: errorResponse('Rate limited (per IP and per QR), or `rfc_attempts_exceeded`: 10 wrong RFCs for this QR today (Retry-After)'),
        },
      },
    },
    '/v1/public/qrs/code/{code}': {
      get: {
        summary:
          "Buyer: the `qr_content` link of the sale a ticket's `short_code` names (any case, with or without the dash). Limited per IP (`PUBLIC_CODE_RATE_PER_IP`, 10 a minute)",
        parameters: pathParams('code'),
        responses: {
          200: { description: "The sale's link", content: json('QrLink') },
          400: errorResponse('`invalid_short_code`: not 10 (or, printed offline, 12) symbols of the code alphabet'),
          404: errorResponse('`short_code_not_found`, or `offline_code_not_arrived`: a 12-symbol code of a ticket printed offline whose sale the store has not sent yet'),
          429: errorResponse('Rate limited'),
        },
      },
    },
    '/v1/public/qrs/csf': {
      post: {
        summary: 'Buyer: prefill the tax data from the tax-status certificate (CSF)',
        description:
          "The QR of the uploaded CSF (or, as a fallback, the PDF's text) gives RFC and idCIF; SAT's current data is answered: `rfc`, `name`, `postal_code`, `status`, `tax_regimes` [{code, description}] (only this RFC's), `read_from` (qr | text). The file is never stored. The QR link goes in the query — a sale's `v`, `t`, `m`, or an offline ticket's `v=2`, `k`, `w`, `a`, `s`, `m` (its waiting page) —: it, the sale's or ticket's state and the limits are checked before the upload is read.",
        parameters: [
          ...qrLinkQuery.map((p) => (p.name === 'v' || p.name === 'm' ? p : { ...p, required: false })),
          ...['k', 'w', 'a', 's'].map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' }, description: `An offline ticket's \`${name}\` (v=2)` })),
        ],
        requestBody: formBody('CsfUploadForm'),
        responses: {
          200: { description: 'The data to prefill', content: json('CsfPrefill') },
          400: errorResponse('Bad link or no document'),
          404: errorResponse('`csf_not_found`: SAT does not know this RFC and idCIF'),
          409: errorResponse('`qr_already_invoiced`: the sale is already invoiced'),
          410: errorResponse('Expired or cancelled; an offline ticket that can no longer be invoiced (`offline_ticket_closed`)'),
          413: errorResponse('File too large'),
          415: errorResponse('Not multipart/form-data'),
          422: errorResponse('`csf_unreadable`: not a PDF or image, or no CSF found in it'),
          429: errorResponse('Rate limited'),
          503: errorResponse("`csf_unavailable`: SAT's service is not answering"),
        },
      },
    },
    '/q': {
      get: {
        summary:
          "The buyer's self-invoicing page (HTML, Spanish): qr_content links here. With `v`, `t`, `m`: the sale, the tax-data form and the invoice; with `code`: the ticket's short code, 303 to its link; alone: where to type the code. States that stop the buyer have their own page and status (400 bad link, 404 unknown, 409 invoiced, 410 expired or cancelled, 422 store inactive, 429)",
        parameters: [
          ...qrLinkQuery.map((p) => ({ ...p, required: false })),
          { name: 'code', in: 'query', required: false, schema: { type: 'string' }, description: 'Short code printed on the ticket' },
        ],
        responses: {
          200: { description: 'The page', content: text('text/html') },
          303: { description: 'To the sale of a short code' },
          400: { description: 'text/html: bad link' },
          404: { description: 'text/html: unknown QR or code' },
          409: { description: "text/html: already invoiced: its date and UUID, and a form for the buyer's RFC that gives the files" },
          410: { description: 'text/html: expired or cancelled' },
          422: { description: 'text/html: store inactive' },
          429: { description: 'text/html: too many attempts' },
        },
      },
    },
    '/q/assets/{name}': {
      get: {
        summary: "The page's stylesheet and script (immutable under their content hash `h`)",
        parameters: pathParams('name'),
        responses: { 200: { description: 'The stylesheet or the script', content: { ...text('text/css'), ...text('text/javascript') } }, 404: errorResponse('No such asset') },
      },
    },
  };
}
