import type { FromSchema } from 'json-schema-to-ts';
import { fileLinkSchema, invoiceStatusSchema, nullableString, refusalSchema } from '../document-view-schema.js';
import { GLOBAL_PERIODICITIES } from '../../../shared/global-invoice/global-period.js';

/** PUT /v1/qrs/issuers/{issuerId}/global-periodicity. */
export const globalPeriodicityRequestSchema = {
  $id: 'GlobalPeriodicityRequest',
  type: 'object',
  additionalProperties: false,
  required: ['periodicity'],
  properties: {
    periodicity: {
      type: 'string',
      enum: [...GLOBAL_PERIODICITIES],
      description: 'c_Periodicidad: 01 daily, 02 weekly, 03 fortnightly, 04 monthly (the default). Applies to QRs created from now on.',
    },
  },
} as const;

/** POST /v1/qrs/issuers/{issuerId}/global-invoices (the body is optional). */
export const reportGlobalRequestSchema = {
  $id: 'GlobalInvoiceRequest',
  type: 'object',
  additionalProperties: false,
  properties: {
    date: {
      type: 'string',
      pattern: '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$',
      description: 'A day (central Mexico) of the period to report; absent: every closed period with unclaimed sales.',
    },
  },
} as const;

export type ReportGlobalRequest = FromSchema<typeof reportGlobalRequestSchema>;

/** A global invoice as the API answers it (global-invoice-view.ts builds it). */
export const globalInvoiceSchema = {
  $id: 'GlobalInvoice',
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'status',
    'uuid',
    'series',
    'folio',
    'merchant_id',
    'periodicity',
    'period_start',
    'period_end',
    'sat_payment_form',
    'sat_payment_method',
    'part',
    'tickets',
    'total',
    'error',
    'xml_url',
    'pdf_url',
  ],
  properties: {
    id: { type: 'string' },
    status: invoiceStatusSchema,
    uuid: { ...nullableString, description: 'Fiscal folio; null until stamped' },
    series: nullableString,
    folio: { type: 'string' },
    merchant_id: { type: 'string', description: 'The store whose unclaimed sales it reports' },
    periodicity: { type: 'string', enum: [...GLOBAL_PERIODICITIES], description: 'c_Periodicidad' },
    period_start: { type: 'string', format: 'date-time' },
    period_end: { type: 'string', format: 'date-time' },
    sat_payment_form: { type: 'string', description: 'c_FormaPago: one global invoice per form' },
    sat_payment_method: { type: 'string', description: 'c_MetodoPago' },
    part: { type: 'integer', minimum: 1, description: 'Global invoices of more sales than one CFDI holds are split in parts' },
    tickets: { type: 'integer', minimum: 0, description: 'Sales (tickets) it reports' },
    total: { type: ['number', 'null'] },
    error: refusalSchema,
    xml_url: fileLinkSchema('XML'),
    pdf_url: fileLinkSchema('PDF'),
  },
} as const;
