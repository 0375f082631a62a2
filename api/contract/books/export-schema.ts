/**
 * The ZIP export of CFDIs (issue #32): POST /v1/qrs/invoices/exports takes the export's filters (the same ones,
 * spelled the same, as GET /v1/qrs/invoices/export's query, here in a JSON body) and `include_pdf`; the answer
 * (export-view.ts builds it) is the export's state, with a signed download link once it is READY.
 */
import { invoiceFilters } from './books-query-schema.js';

export const invoiceExportRequestSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...invoiceFilters,
    include_pdf: { type: 'boolean', description: "Also each CFDI's PDF, rendered on first ask and kept (default false)" },
  },
} as const;

const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;
const nullableText = { type: ['string', 'null'] } as const;

export const INVOICE_EXPORT_STATUSES = ['PENDING', 'RUNNING', 'READY', 'FAILED'] as const;

export const invoiceExportSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'export_id',
    'status',
    'include_pdf',
    'merchant_ids',
    'files_done',
    'files_total',
    'size_bytes',
    'created_at',
    'finished_at',
    'expires_at',
    'download_url',
    'download_expires_at',
    'period',
    'filters',
  ],
  properties: {
    export_id: { type: 'string' },
    status: { enum: INVOICE_EXPORT_STATUSES, description: 'PENDING (queued), RUNNING (being written), READY (download_url), FAILED (request it again)' },
    include_pdf: { type: 'boolean' },
    merchant_ids: { type: 'array', items: { type: 'string' }, description: 'The merchants whose CFDIs it holds' },
    files_done: { type: 'integer', minimum: 0, description: 'Files written into the ZIP so far' },
    files_total: { type: ['integer', 'null'], minimum: 0, description: 'Files it will hold (null until the job starts)' },
    size_bytes: { type: ['integer', 'null'], minimum: 0, description: "The ZIP's size once READY" },
    created_at: { type: 'string', format: 'date-time' },
    finished_at: nullableDateTime,
    expires_at: { type: 'string', format: 'date-time', description: 'When the export and its file are removed' },
    download_url: {
      type: ['string', 'null'],
      format: 'uri',
      description: 'READY: a signed link to the ZIP, no credentials needed, re-issued on every read; 410 after download_expires_at',
    },
    download_expires_at: nullableDateTime,
    period: {
      type: 'object',
      additionalProperties: false,
      required: ['from', 'to'],
      description:
        "The CFDIs it holds by when they were requested: from (inclusive) to (exclusive), the request's created_from and created_to read on the clocks of its time_zone; null: unbounded",
      properties: { from: nullableDateTime, to: nullableDateTime },
    },
    filters: {
      type: 'object',
      additionalProperties: false,
      required: ['status', 'cfdi_type', 'receptor_rfc', 'uuid', 'series', 'folio', 'store_uid', 'sale_id'],
      description: 'The other filters it was asked with (status: the stamped states when none was asked); null when not given',
      properties: {
        status: { type: 'array', items: { type: 'string' } },
        cfdi_type: nullableText,
        receptor_rfc: nullableText,
        uuid: nullableText,
        series: nullableText,
        folio: nullableText,
        store_uid: nullableText,
        sale_id: nullableText,
      },
    },
  },
} as const;

export const invoiceExportListSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['content'],
  description: 'The exports these credentials asked for that are still kept, newest first (at most EXPORT_LIST_MAX; an export is kept EXPORT_KEEP_DAYS)',
  properties: { content: { type: 'array', items: { $ref: '#/components/schemas/InvoiceExport' } } },
} as const;
