/**
 * GET /v1/qrs/invoices/summary's answer (issue #32): a period of the merchant's books added up, per merchant
 * and its issuer (shared/books/period-summary.ts builds it). Money is decimal text summed exactly.
 */
import { ACCOUNTING_TAXES } from '../../../shared/domain/cfdi/accounting-facts.js';
import { SALE_BUCKETS } from '../../../shared/repositories/books-summary.js';

const str = { type: 'string' } as const;
const count = { type: 'integer', minimum: 0 } as const;
const day = { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'YYYY-MM-DD' } as const;
const money = { type: 'string', pattern: '^-?[0-9]+\\.[0-9]{2,6}$', description: 'Decimal text' } as const;
const countAndTotal = { type: 'object', additionalProperties: false, required: ['count', 'total'], properties: { count, total: money } } as const;

const SALE_DESCRIPTIONS: Record<(typeof SALE_BUCKETS)[number], string> = {
  recorded: 'Every sale (QR) created in the period',
  invoiced: 'Invoiced to their buyers (one ticket or several in one invoice)',
  global_invoice: 'Reported in a global invoice that is stamped',
  expired_unclaimed: 'Expired unclaimed and in no stamped global invoice (yet: one being stamped, or left out as unreportable)',
  cancelled: 'Cancelled by the point of sale',
  open: 'Still open (pending or scanned) and in no global invoice',
};

const salesSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'The sales of one currency',
  required: ['currency', ...SALE_BUCKETS],
  properties: {
    currency: str,
    ...Object.fromEntries(SALE_BUCKETS.map((b) => [b, { ...countAndTotal, description: SALE_DESCRIPTIONS[b] }])),
  },
} as const;

const cfdiSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'The stamped CFDIs of one type, state (cancelled or not) and currency (a payment complement is in XXX)',
  required: ['cfdi_type', 'cancelled', 'currency', 'count', 'subtotal', 'discount', 'taxes', 'total'],
  properties: {
    cfdi_type: { enum: ['I', 'E', 'P'] },
    cancelled: { type: 'boolean', description: 'true: cancelled before SAT; false: valid (a cancellation may be under way)' },
    currency: str,
    count,
    subtotal: money,
    discount: money,
    taxes: {
      type: 'object',
      additionalProperties: false,
      description: 'Each tax of the documents summed, as their cfdi:Impuestos say',
      required: ACCOUNTING_TAXES.map((t) => t.column),
      properties: Object.fromEntries(ACCOUNTING_TAXES.map((t) => [t.column, money])),
    },
    total: money,
  },
} as const;

const relatedInvoice = {
  invoice_id: str,
  invoice_uuid: { type: ['string', 'null'] },
  invoice_total: { type: ['string', 'null'], pattern: '^-?[0-9]+\\.[0-9]{2,6}$' },
  documents: { ...count, description: "The period's documents relating to the invoice" },
  amount: { ...money, description: 'What they credit or pay' },
  amount_all: { ...money, description: 'What every valid one, of any period, credits or pays' },
} as const;
const relatedRequired = ['invoice_id', 'invoice_uuid', 'invoice_total', 'documents', 'amount', 'amount_all'] as const;

const differenceSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['code', 'message'],
  properties: {
    code: {
      enum: [
        'sale_not_reported',
        'sale_unreportable',
        'global_invoice_not_stamped',
        'sale_invoiced_without_invoice',
        'sale_invoiced_and_reported',
        'invoice_sale_not_invoiced',
        'global_ticket_count',
        'offline_sale_other_period',
        'sale_repeated',
        'credit_exceeds_invoice',
        'payments_exceed_invoice',
      ],
    },
    message: str,
    qr_id: str,
    sale_id: str,
    invoice_id: str,
    uuid: str,
  },
} as const;

export const merchantSummarySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['merchant_id', 'merchant_name', 'issuer', 'sales', 'cfdis', 'credit_notes', 'payment_complements', 'differences', 'differences_total'],
  properties: {
    merchant_id: str,
    merchant_name: str,
    issuer: { type: 'object', additionalProperties: false, required: ['id', 'rfc'], properties: { id: str, rfc: str } },
    sales: { type: 'array', items: salesSchema },
    cfdis: { type: 'array', items: cfdiSchema, description: 'Stamped in the period (created in it), cancelled ones apart' },
    credit_notes: {
      type: 'array',
      description: "The invoices the period's valid credit notes relate to",
      items: { type: 'object', additionalProperties: false, required: relatedRequired, properties: relatedInvoice },
    },
    payment_complements: {
      type: 'array',
      description: "The invoices the period's valid payment complements pay",
      items: {
        type: 'object',
        additionalProperties: false,
        required: [...relatedRequired, 'remaining_balance'],
        properties: { ...relatedInvoice, remaining_balance: { ...money, description: 'The balance left after the last of them' } },
      },
    },
    differences: { type: 'array', items: differenceSchema, description: 'Every item that does not add up, named by its ids (up to 100 of each kind)' },
    differences_total: count,
  },
} as const;

export const periodSummarySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['period', 'items'],
  properties: {
    period: {
      type: 'object',
      additionalProperties: false,
      required: ['from', 'to', 'time_zone'],
      properties: { from: day, to: day, time_zone: str },
    },
    items: { type: 'array', items: merchantSummarySchema },
  },
} as const;
