/**
 * JSON Schemas of the buyer routes' answers (/v1/public/qrs/…), for the OpenAPI document: what
 * buyer-sale-view.ts, api/routes/public-buyer.ts and api/buyer/prefill-from-csf.ts build. A test
 * validates real answers against them. Open to further members (no additionalProperties: false), so a
 * field added to the buyer's answers is documented here without breaking the clients' types.
 */
import { errorDetailSchema, invoiceStatusSchema, refusalSchema } from '../document-view-schema.js';
import { customerSchema } from './customer-schema.js';
import { LOGO_ANIMATIONS } from '../../../shared/merchants/merchant.js';
import { conceptViewSchema, invoiceViewSchema, qrTransactionSchema, totalsViewSchema } from '../qrs/qr-transaction-schema.js';

const str = { type: 'string' } as const;
const nullableStr = { type: ['string', 'null'] } as const;
const qr = qrTransactionSchema.properties;

const { xml_url: _xml, pdf_url: _pdf, ...invoiceWithoutFiles } = invoiceViewSchema.properties;

/**
 * An invoice as whoever holds the ticket sees it: stamped, when, its UUID; not its files (they carry the
 * buyer's RFC, name and zip): POST /v1/public/qrs/invoice-files answers them for the buyer's RFC.
 */
export const buyerInvoiceSchema = {
  $id: 'BuyerInvoice',
  type: 'object',
  additionalProperties: false,
  required: invoiceViewSchema.required.filter((f) => f !== 'xml_url' && f !== 'pdf_url'),
  properties: invoiceWithoutFiles,
} as const;

/** Where the buyer's confirmation stands; null before any. */
export const buyerConfirmationSchema = {
  $id: 'BuyerConfirmation',
  anyOf: [
    { type: 'null' },
    {
      type: 'object',
      required: ['status', 'error', 'invoice'],
      properties: {
        status: invoiceStatusSchema,
        error: { ...refusalSchema, description: 'REFUSED: what to correct, per field (`source` pac or sat)' },
        invoice: {
          anyOf: [{ type: 'null' }, { $ref: '#/components/schemas/BuyerInvoice' }],
          description: 'Once stamped: UUID and date, without the files (POST /v1/public/qrs/invoice-files with the buyer’s RFC)',
        },
      },
    },
  ],
} as const;

const { sku: _sku, ...conceptWithoutSku } = conceptViewSchema.properties;

/** GET /v1/public/qrs/resolve 200: what the buyer reviews. */
export const buyerSaleSchema = {
  $id: 'BuyerSale',
  type: 'object',
  required: [
    'status',
    'expires_at',
    'scanned_at',
    'merchant',
    'issuer',
    'currency',
    'exchange_rate',
    'sat_payment_method',
    'sat_payment_method_desc',
    'sat_payment_form',
    'sat_payment_form_desc',
    'operation_data',
    'totals',
    'confirmation',
  ],
  properties: {
    status: qr.status,
    expires_at: qr.expires_at,
    scanned_at: qr.scanned_at,
    merchant: {
      type: 'object',
      required: ['name', 'app_logo_url', 'logo_animation', 'support'],
      properties: {
        name: str,
        app_logo_url: nullableStr,
        logo_animation: { type: 'string', enum: LOGO_ANIMATIONS },
        support: { type: 'object', required: ['email', 'phone'], properties: { email: nullableStr, phone: nullableStr } },
      },
    },
    issuer: { type: 'object', required: ['rfc', 'name'], properties: { rfc: str, name: str } },
    currency: qr.currency,
    exchange_rate: qr.exchange_rate,
    sat_payment_method: qr.sat_payment_method,
    sat_payment_method_desc: qr.sat_payment_method_desc,
    sat_payment_form: qr.sat_payment_form,
    sat_payment_form_desc: qr.sat_payment_form_desc,
    operation_data: {
      type: 'array',
      items: { type: 'object', required: conceptViewSchema.required.filter((f) => f !== 'sku'), properties: conceptWithoutSku },
    },
    totals: totalsViewSchema,
    confirmation: { $ref: '#/components/schemas/BuyerConfirmation' },
  },
} as const;

/** POST /v1/public/qrs/preview 200. */
export const buyerPreviewSchema = {
  $id: 'BuyerPreview',
  type: 'object',
  required: ['customer', 'totals', 'warnings', 'tickets', 'review_digest'],
  properties: {
    customer: { ...customerSchema, description: 'The tax data as it will be written (trimmed, upper-cased)' },
    totals: { ...totalsViewSchema, description: 'The totals for this buyer: withholdings may apply' },
    warnings: { type: 'array', items: errorDetailSchema, description: 'What to look at twice before confirming, though SAT may accept it' },
    tickets: {
      type: 'array',
      items: { $ref: '#/components/schemas/TicketSummary' },
      description: 'Every ticket of the invoice with its concepts: the link’s, then each of `additional_tickets`',
    },
    review_digest: {
      type: 'string',
      description:
        'Fingerprint of what confirm would stamp (tickets, concepts, customer, totals): POST /v1/public/qrs/confirm must carry it; if what would be stamped changed, confirm answers 409 `review_outdated` with the new review',
    },
  },
} as const;

/** GET /v1/public/qrs/status 200. */
export const buyerQrStatusSchema = {
  $id: 'BuyerQrStatus',
  type: 'object',
  required: ['status', 'expires_at', 'confirmation'],
  properties: { status: qr.status, expires_at: qr.expires_at, confirmation: { $ref: '#/components/schemas/BuyerConfirmation' } },
} as const;

/** POST /v1/public/qrs/email 202. */
export const emailQueuedSchema = {
  $id: 'EmailQueued',
  type: 'object',
  required: ['status', 'to'],
  properties: { status: { type: 'string', const: 'QUEUED' }, to: { type: 'string', description: 'The address, masked (`j•••@example.com`)' } },
} as const;

/** GET /v1/public/qrs/code/{code} 200. */
export const qrLinkSchema = {
  $id: 'QrLink',
  type: 'object',
  required: ['qr_content'],
  properties: { qr_content: { type: 'string', description: "The sale's link (the QR's deep link, with v, t, m)" } },
} as const;

/** POST /v1/public/qrs/csf 200: SAT's current data for the RFC of the certificate. */
export const csfPrefillSchema = {
  $id: 'CsfPrefill',
  type: 'object',
  required: ['rfc', 'name', 'postal_code', 'status', 'tax_regimes', 'read_from'],
  properties: {
    rfc: str,
    name: { type: 'string', description: 'Legal name as SAT has it' },
    postal_code: str,
    status: { type: 'string', description: "The taxpayer's status at SAT (e.g. ACTIVO)" },
    tax_regimes: {
      type: 'array',
      description: "This RFC's regimes valid today for its person type (c_RegimenFiscal)",
      items: { type: 'object', required: ['code', 'description'], properties: { code: str, description: str } },
    },
    read_from: { type: 'string', enum: ['qr', 'text'], description: "Where the RFC and idCIF were read: the certificate's QR, or its text" },
  },
} as const;

/** One ticket of several in one invoice (buyer-sale-view.ts, ticketSummaryView). */
export const ticketSummarySchema = {
  $id: 'TicketSummary',
  type: 'object',
  required: ['short_code', 'store_name', 'issued_at', 'sat_payment_form', 'amount', 'currency', 'operation_data'],
  properties: {
    short_code: { ...nullableStr, description: 'The code printed under its QR' },
    store_name: str,
    issued_at: { type: 'string', description: 'Local date and time of the sale (the store’s time zone)' },
    sat_payment_form: qr.sat_payment_form,
    amount: qr.amount,
    currency: qr.currency,
    operation_data: {
      type: 'array',
      items: { type: 'object', required: ['description', 'quantity', 'amount'], properties: { description: str, quantity: { type: 'number' }, amount: { type: 'number' } } },
    },
  },
} as const;

/** POST /v1/public/qrs/tickets 200: the tickets of one invoice and its totals. */
export const ticketsReviewSchema = {
  $id: 'TicketsReview',
  type: 'object',
  required: ['tickets', 'totals'],
  properties: {
    tickets: { type: 'array', items: { $ref: '#/components/schemas/TicketSummary' }, description: 'The first ticket, then each further one, in the order of their concepts' },
    totals: { ...totalsViewSchema, description: 'The totals of the one invoice they make (before the buyer’s data: withholdings may still apply)' },
  },
} as const;

/** POST /v1/qrs/invoices 200 (dry run): what the invoice would be; nothing recorded. */
export const invoiceQrsDryRunSchema = {
  $id: 'InvoiceQrsDryRun',
  type: 'object',
  required: ['dry_run', 'qr_ids', 'tickets', 'customer', 'totals', 'warnings', 'review_digest'],
  properties: {
    dry_run: { type: 'boolean', const: true },
    qr_ids: { type: 'array', items: str },
    tickets: { type: 'array', items: { $ref: '#/components/schemas/TicketSummary' } },
    customer: { ...customerSchema, description: 'The tax data as it will be written (trimmed, upper-cased)' },
    totals: totalsViewSchema,
    warnings: { type: 'array', items: errorDetailSchema },
    review_digest: { type: 'string', description: 'Send it with the real call to stamp only what this dry run showed (409 `review_outdated` otherwise)' },
  },
} as const;

/** POST /v1/qrs/invoices 202: the confirmation as it stands (STAMPING, or ACTIVE with the invoice on a repeat). */
export const invoiceQrsAcceptedSchema = {
  $id: 'InvoiceQrsAccepted',
  type: 'object',
  required: ['qr_ids', 'tickets', 'status', 'error', 'invoice'],
  properties: {
    qr_ids: { type: 'array', items: str },
    tickets: { type: 'array', items: { $ref: '#/components/schemas/TicketSummary' } },
    status: invoiceStatusSchema,
    error: refusalSchema,
    invoice: { anyOf: [{ type: 'null' }, invoiceViewSchema] },
  },
} as const;
