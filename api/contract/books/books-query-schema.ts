/**
 * Query strings of the merchant's books (issue #32): GET /v1/qrs, GET /v1/qrs/invoices and
 * GET /v1/qrs/invoices/export. Every value arrives as text; ajv checks its form (an unknown or repeated
 * parameter is a 400, so a misspelled filter is never silently ignored) and api/books/books-request.ts reads it.
 */
import { INVOICE_MOVES } from '../../../shared/domain/invoice-lifecycle.js';
import { QR_MOVES } from '../../../shared/domain/qr-lifecycle.js';
import { CURSOR_PAGE } from '../../../shared/platform/keyset-cursor.js';

export const QR_STATUSES = Object.keys(QR_MOVES);
export const INVOICE_STATUSES = Object.keys(INVOICE_MOVES);
export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;

/** A comma-separated list of `values` (e.g. `EXPIRED,CANCELLED`). */
function listOf(values: readonly string[], description: string) {
  const one = `(${values.join('|')})`;
  return { type: 'string', pattern: `^${one}(,${one})*$`, description } as const;
}

const date = (description: string) => ({ type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description }) as const;
const text = (maxLength: number, description: string) => ({ type: 'string', minLength: 1, maxLength, description }) as const;

const scopeAndPeriod = {
  merchant_id: text(64, "Bearer token: one of the account's merchants (default: all of them). API key: its own merchant only"),
  created_from: date('First day (YYYY-MM-DD, inclusive) on the clocks of `time_zone`'),
  created_to: date('Last day (YYYY-MM-DD, inclusive)'),
  time_zone: text(64, 'IANA time zone the dates are read in (default America/Mexico_City)'),
  store_uid: text(100, 'The store: a merchant, by its external id or its id (its sales, and every CFDI it issued)'),
  sale_id: text(100, "The POS's sale id (a CFDI: one of the sales it covers)"),
} as const;

const paging = {
  cursor: text(200, '`next_cursor` of the page before (absent: the newest page)'),
  size: { type: 'string', pattern: '^[0-9]{1,3}$', description: `Page size, 1 to ${CURSOR_PAGE.maxSize} (default ${CURSOR_PAGE.size})` },
} as const;

export const qrListQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...scopeAndPeriod,
    ...paging,
    status: listOf(QR_STATUSES, 'One or more QR statuses, comma-separated'),
    global_invoice_uuid: { type: 'string', format: 'uuid', description: "The sales a global invoice reported (the export gives a global invoice's count of sales, not the sales)" },
  },
} as const;

export const invoiceFilters = {
  ...scopeAndPeriod,
  status: listOf(INVOICE_STATUSES, 'One or more CFDI statuses, comma-separated'),
  cfdi_type: { enum: ['I', 'E', 'P'], description: 'I (invoices, global ones included), E (credit notes), P (payment complements)' },
  receptor_rfc: { type: 'string', pattern: '^[A-Za-zÑñ&0-9]{12,13}$', description: "The receptor's RFC" },
  uuid: { type: 'string', format: 'uuid', description: 'Fiscal folio (UUID)' },
  series: text(25, 'Serie'),
  folio: { type: 'string', pattern: '^[0-9]{1,18}$', description: 'Folio' },
} as const;

export const invoiceListQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: { ...invoiceFilters, ...paging },
} as const;

export const invoiceExportQuerySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['format'],
  properties: { ...invoiceFilters, format: { enum: EXPORT_FORMATS, description: 'csv (RFC 4180, UTF-8, CRLF) or jsonl (one JSON object a line)' } },
} as const;

/** GET /v1/qrs/invoices/summary: one period (both days inclusive), whose merchant(s), read on which clocks. */
export const invoiceSummaryQuerySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['from', 'to'],
  properties: {
    merchant_id: scopeAndPeriod.merchant_id,
    from: date('First day of the period (YYYY-MM-DD, inclusive) on the clocks of `time_zone`'),
    to: date('Last day of the period (YYYY-MM-DD, inclusive); at most 366 days after `from`'),
    time_zone: scopeAndPeriod.time_zone,
  },
} as const;

/** The query parameters of a schema, as the OpenAPI document lists them. */
export function queryParameters(schema: { properties: Record<string, { description?: string }>; required?: readonly string[] }) {
  return Object.entries(schema.properties).map(([name, property]) => {
    const { description, ...rest } = property;
    // Every value arrives as text and ajv checks it as text; the document says what a client sends.
    const shown = name === 'size' ? { type: 'integer', minimum: 1, maximum: CURSOR_PAGE.maxSize, default: CURSOR_PAGE.size } : rest;
    return { name, in: 'query', required: schema.required?.includes(name) ?? false, schema: shown, ...(description ? { description } : {}) };
  });
}
