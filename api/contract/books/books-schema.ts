/**
 * Answers of the merchant's books (issue #32): the items of GET /v1/qrs and GET /v1/qrs/invoices
 * (books-view.ts builds them) and their cursor page envelope. Money is decimal text ("116.00"): these are the
 * figures a merchant's books add up, not to be rounded by a float on the way.
 */
import { CURSOR_PAGE } from '../../../shared/platform/keyset-cursor.js';
import { INVOICE_STATUSES, QR_STATUSES } from './books-query-schema.js';

const str = { type: 'string' } as const;
const nullableStr = { type: ['string', 'null'] } as const;
const money = { type: 'string', pattern: '^[0-9]+\\.[0-9]{2,6}$', description: 'Decimal text' } as const;
const nullableMoney = { type: ['string', 'null'], pattern: '^[0-9]+\\.[0-9]{2,6}$' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;

export const qrSummarySchema = {
  type: 'object',
  additionalProperties: false,
  description: 'A QR transaction as listed (GET /v1/qrs/{qrId} has the whole of it)',
  required: [
    'qr_id',
    'merchant_id',
    'mode',
    'store_uid',
    'sale_id',
    'operation',
    'status',
    'amount',
    'subtotal',
    'currency',
    'created_at',
    'expires_at',
    'scanned_at',
    'invoice',
    'global_invoice_uuid',
    'sold_at',
  ],
  properties: {
    qr_id: str,
    merchant_id: str,
    mode: { enum: ['development', 'production'] },
    store_uid: str,
    sale_id: str,
    operation: str,
    status: { enum: QR_STATUSES },
    amount: money,
    subtotal: money,
    currency: str,
    created_at: dateTime,
    expires_at: dateTime,
    scanned_at: nullableDateTime,
    invoice: {
      description: 'The live invoice of this sale (it may cover further tickets), stamping or stamped',
      anyOf: [
        { type: 'null' },
        { type: 'object', additionalProperties: false, required: ['uuid', 'status'], properties: { uuid: nullableStr, status: { enum: INVOICE_STATUSES } } },
      ],
    },
    global_invoice_uuid: { type: ['string', 'null'], description: 'The global invoice that reported this unclaimed sale' },
    sold_at: {
      ...nullableDateTime,
      description:
        'A sale made offline (a ticket the POS signed, caught up later): the moment of sale, which decides its global period (created_at is when it arrived); null for a sale posted when made',
    },
  },
} as const;

export const invoiceSummarySchema = {
  type: 'object',
  additionalProperties: false,
  description: 'A CFDI of the merchant as listed: its XML and PDF by UUID at /v1/qrs/invoices/uuid/{uuid}/xml and …/pdf',
  required: [
    'id',
    'merchant_id',
    'kind',
    'cfdi_type',
    'status',
    'uuid',
    'series',
    'folio',
    'receptor',
    'subtotal',
    'discount',
    'total',
    'created_at',
    'stamped_at',
    'sales',
    'global_tickets',
  ],
  properties: {
    id: { type: 'string', description: 'The service’s id of the CFDI (a credit note’s or payment complement’s id in their own routes)' },
    merchant_id: str,
    kind: { enum: ['invoice', 'global_invoice', 'credit_note', 'payment_complement'] },
    cfdi_type: { enum: ['I', 'E', 'P'] },
    status: { enum: INVOICE_STATUSES, description: 'STAMPING and REFUSED have no UUID: no CFDI was issued (yet)' },
    uuid: nullableStr,
    series: nullableStr,
    folio: str,
    receptor: { type: 'object', additionalProperties: false, required: ['rfc', 'name'], properties: { rfc: str, name: str } },
    subtotal: nullableMoney,
    discount: nullableMoney,
    total: nullableMoney,
    created_at: { ...dateTime, description: 'When the CFDI was requested (the confirmation, the credit note…): the key of the list and its date filters' },
    stamped_at: { ...nullableDateTime, description: "The PAC's stamp time" },
    sales: {
      type: 'array',
      description: "The QR sales a ticket invoice covers, in ticket order (empty for the other kinds; a global invoice's are in the export)",
      items: { type: 'object', additionalProperties: false, required: ['qr_id', 'store_uid', 'sale_id'], properties: { qr_id: str, store_uid: str, sale_id: str } },
    },
    global_tickets: { type: ['integer', 'null'], description: 'A global invoice: how many sales it reports' },
  },
} as const;

/** The cursor page envelope of `items` (shared/platform/keyset-cursor.ts's CursorPage). */
export function cursorPageSchema<const I extends object>(items: I, description: string) {
  return {
    type: 'object',
    additionalProperties: false,
    description,
    required: ['content', 'size', 'next_cursor'],
    properties: {
      content: { type: 'array', items, description: 'The items of this page, newest first' },
      size: { type: 'integer', minimum: 1, maximum: CURSOR_PAGE.maxSize, description: 'Page size asked for' },
      next_cursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last page' },
    },
  } as const;
}
