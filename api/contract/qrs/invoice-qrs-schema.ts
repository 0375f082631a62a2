/** POST /v1/qrs/invoices: a merchant invoices several of its QR sales (or one) for a known customer. */
import type { FromSchema } from 'json-schema-to-ts';
import { MAX_TICKETS_PER_INVOICE } from '../../../shared/invoices/combine-tickets.js';
import { customerSchema, reviewDigestSchema } from '../buyer/customer-schema.js';

export const invoiceQrsRequestSchema = {
  $id: 'InvoiceQrsRequest',
  type: 'object',
  additionalProperties: false,
  required: ['qr_ids', 'customer'],
  properties: {
    qr_ids: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_TICKETS_PER_INVOICE,
      uniqueItems: true,
      items: { type: 'string', minLength: 1, maxLength: 64 },
      description: "The merchant's QR transactions to invoice in one CFDI, in the order of their concepts; the first one's header (currency, payment method) rules",
    },
    customer: customerSchema,
    dry_run: { type: 'boolean', default: false, description: 'Check everything and answer the totals and `review_digest`; nothing is recorded' },
    review_digest: {
      ...reviewDigestSchema,
      description:
        'Optional on the real call: the dry run’s `review_digest`, so that only what the dry run showed is stamped; when it differs, 409 `review_outdated` with the new `review` and nothing recorded. Without it the call stamps what the QR ids and customer give (they are all in the request)',
    },
  },
} as const;

export type InvoiceQrsRequest = FromSchema<typeof invoiceQrsRequestSchema>;
