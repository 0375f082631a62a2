/**
 * JSON Schema pieces every answer about a CFDI the service issues shares (credit notes, payment
 * complements, global invoices, the buyer's confirmation): its status, why the PAC refused it, its file links.
 */
import { INVOICE_MOVES, type InvoiceStatus } from '../../shared/domain/invoice-lifecycle.js';

export const nullableString = { type: ['string', 'null'] } as const;

export const invoiceStatusSchema = {
  type: 'string',
  enum: Object.keys(INVOICE_MOVES) as InvoiceStatus[],
  description:
    'STAMPING (sealed, at the PAC), REFUSED (the PAC or SAT refused it: see `error`), ACTIVE (stamped), CANCELLING, CANCELLATION_PENDING (the receptor must accept), CANCELLATION_REJECTED, CANCELLED',
} as const;

/** One field-level problem: the spec's `error.details[]` item (shared/platform/errors.ts ErrorDetail). */
export const errorDetailSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['field', 'code', 'message'],
  properties: {
    field: { type: 'string', description: 'The field, as `operation_data[0].quantity`' },
    code: { type: 'string' },
    message: { type: 'string' },
    source: { type: 'string', enum: ['service', 'pac', 'sat'], description: 'Buyer routes: who refused' },
    pac_code: { type: 'string', description: "The PAC's own code when it refused, e.g. CFDI40145" },
    expected: { type: 'string', description: 'The value the service computed, when the one sent does not reconcile with it' },
  },
} as const;

/** Why the PAC refused a CFDI: null unless `status` is REFUSED. */
export const refusalSchema = {
  anyOf: [
    { type: 'null' },
    {
      type: 'object',
      additionalProperties: false,
      required: ['code', 'message', 'details'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'array', items: errorDetailSchema } },
    },
  ],
} as const;

export const fileLinkSchema = (kind: 'XML' | 'PDF') => ({ ...nullableString, description: `Signed link to the ${kind}; null until stamped` }) as const;
