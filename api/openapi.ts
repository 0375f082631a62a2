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
import { formSchemas, withFormSamples } from './openapi-forms.js';
import { withTags } from './openapi-tags.js';
import { healthSchema, serviceLinksSchema } from './contract/service/service-answer-schemas.js';
import { ref } from './routing/openapi-parts.js';
import { documentedPaths } from './routing/openapi-paths.js';
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

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

type Operation = { summary?: string; description?: string };

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

/** Every operation titled (its name and security come from its declaration). */
function withTitles<D extends { paths: Record<string, Record<string, unknown>> }>(doc: D): D {
  for (const item of Object.values(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method] as Operation | undefined;
      if (op) titled(op);
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
  return withTags(withFormSamples(withExamples(withTitles(withoutSchemaIds(rawDocument(routes, publicBaseUrl))), now)));
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
    paths: documentedPaths(routes),
  };
}
