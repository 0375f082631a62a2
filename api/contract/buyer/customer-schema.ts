/** The buyer's tax data (spec "customer", plus the e-mail and a foreign buyer's residence) and the buyer routes' bodies. */
import type { FromSchema } from 'json-schema-to-ts';
import type { Customer } from '../../../shared/invoices/customer.js';
import type { Proof, SameType } from '../same-type.js';
import { CFDI_TEXT } from '../../../shared/sat/cfdi-text-rules.js';
import { MAX_TICKETS_PER_INVOICE } from '../../../shared/invoices/combine-tickets.js';

export const customerSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['rfc', 'name', 'tax_regime', 'postal_code', 'cfdi_use', 'email'],
  properties: {
    rfc: { type: 'string', minLength: 12, maxLength: 13, description: 'RFC; XAXX010101000 (público en general) and XEXX010101000 (foreign) follow Anexo 20.' },
    name: {
      type: 'string',
      'x-cfdi-text': CFDI_TEXT.receptorName,
      description: 'Legal name exactly as on the tax-status certificate, without the company-type suffix (SA DE CV).',
    },
    tax_regime: { type: 'string', pattern: '^[0-9]{3}$', description: 'c_RegimenFiscal key' },
    postal_code: { type: 'string', pattern: '^[0-9]{5}$', description: 'Fiscal postal code' },
    cfdi_use: { type: 'string', pattern: '^[A-Z0-9]{3,4}$', description: 'c_UsoCFDI key' },
    email: { type: 'string', format: 'email', maxLength: 254 },
    tax_residence: { type: 'string', pattern: '^[A-Z]{3}$', description: 'c_Pais of a foreign buyer (required with XEXX010101000)' },
  },
} as const;

// What ajv validates is the invoices feature's Customer, field for field: a change on one side alone fails tsc.
type _ValidatesCustomer = Proof<SameType<FromSchema<typeof customerSchema>, Customer>>;

const qrParams = {
  v: { type: 'string', maxLength: 4 },
  t: { type: 'string', maxLength: 64 },
  m: { type: 'string', maxLength: 64 },
} as const;

/** Further tickets of one invoice, each by its printed short code or its QR link (qr_content). */
const additionalTickets = {
  type: 'array',
  maxItems: MAX_TICKETS_PER_INVOICE - 1,
  items: { type: 'string', minLength: 1, maxLength: 600 },
  description: 'Further tickets of the same issuer, currency and payment method to invoice in the same CFDI: the short code printed on each (7KQ4M-XR2PA) or its QR link',
} as const;

/** The fingerprint of what was reviewed (shared/invoices/review-digest.ts), as a preview or dry run answers it. */
export const reviewDigestSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  description:
    'The `review_digest` of the preview (dry run) this confirms: a fingerprint of the tickets, their concepts, the customer and the totals. When what would be stamped now differs, 409 `review_outdated` with the new review',
} as const;

/** POST /v1/public/qrs/preview: what confirm sends, before the buyer has seen the totals. */
export const previewRequestSchema = {
  $id: 'PreviewQrRequest',
  type: 'object',
  additionalProperties: false,
  required: ['v', 't', 'm', 'customer'],
  properties: { ...qrParams, customer: customerSchema, additional_tickets: additionalTickets },
} as const;

export type PreviewRequest = FromSchema<typeof previewRequestSchema>;

/** POST /v1/public/qrs/confirm: the previewed request with the preview's `review_digest`. */
export const confirmRequestSchema = {
  $id: 'ConfirmQrRequest',
  type: 'object',
  additionalProperties: false,
  required: ['v', 't', 'm', 'customer', 'review_digest'],
  properties: { ...qrParams, customer: customerSchema, additional_tickets: additionalTickets, review_digest: reviewDigestSchema },
} as const;

export type ConfirmRequest = FromSchema<typeof confirmRequestSchema>;

export const emailRequestSchema = {
  $id: 'EmailInvoiceRequest',
  type: 'object',
  additionalProperties: false,
  required: ['v', 't', 'm'],
  properties: {
    ...qrParams,
    email: { type: 'string', format: 'email', maxLength: 254, description: 'Defaults to the e-mail given at confirmation; another address needs `rfc`' },
    rfc: { type: 'string', maxLength: 20, description: "The buyer's RFC as on the invoice: required to send to an address other than the one given at confirmation" },
  },
} as const;

export const ticketsRequestSchema = {
  $id: 'ReviewTicketsRequest',
  type: 'object',
  additionalProperties: false,
  required: ['v', 't', 'm', 'additional_tickets'],
  properties: { ...qrParams, additional_tickets: additionalTickets },
} as const;

export type TicketsRequest = FromSchema<typeof ticketsRequestSchema>;

export type EmailRequest = FromSchema<typeof emailRequestSchema>;
