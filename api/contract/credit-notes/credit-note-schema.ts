/** POST /v1/qrs/invoices/credit-notes: how much of which stamped invoices is credited, and how the money goes back. */
import type { FromSchema } from 'json-schema-to-ts';
import { fileLinkSchema, invoiceStatusSchema, nullableString, refusalSchema } from '../document-view-schema.js';
import { CFDI_TEXT } from '../../../shared/sat/cfdi-text-rules.js';

export const createCreditNoteSchema = {
  $id: 'CreditNoteRequest',
  type: 'object',
  additionalProperties: false,
  required: ['related', 'sat_payment_form', 'sat_payment_method'],
  properties: {
    related: {
      type: 'array',
      minItems: 1,
      maxItems: 50,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['uuid', 'amount'],
        properties: {
          uuid: { type: 'string', format: 'uuid', description: 'Fiscal UUID of a stamped invoice (type I) of this merchant or account.' },
          amount: { type: 'number', exclusiveMinimum: 0, 'x-decimal': true, description: "How much of that invoice's total (taxes included) to credit." },
        },
      },
      description: 'The invoices credited (CfdiRelacionados, TipoRelacion 01): same issuer, receptor and currency.',
    },
    sat_payment_form: { type: 'string', pattern: '^[0-9]{2}$', description: 'c_FormaPago the money goes back with (not 99).' },
    sat_payment_method: { type: 'string', enum: ['PUE'], description: 'c_MetodoPago: a credit note is settled in one payment (PUE).' },
    description: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      'x-cfdi-text': CFDI_TEXT.conceptDescription,
      description: 'Why (shown on each concept), e.g. "Devolución de mercancía".',
    },
  },
} as const;

export type CreateCreditNoteRequest = FromSchema<typeof createCreditNoteSchema>;

/** A credit note as the API answers it (credit-note-view.ts builds it). */
export const creditNoteSchema = {
  $id: 'CreditNote',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'status', 'uuid', 'series', 'folio', 'related', 'total', 'issued_at', 'error', 'xml_url', 'pdf_url'],
  properties: {
    id: { type: 'string' },
    type: { type: 'string', const: 'E', description: 'c_TipoDeComprobante E (egreso)' },
    status: invoiceStatusSchema,
    uuid: { ...nullableString, description: 'Fiscal folio; null until stamped' },
    series: nullableString,
    folio: { type: 'string' },
    related: {
      type: 'array',
      items: { type: 'object', additionalProperties: false, required: ['uuid', 'amount'], properties: { uuid: { type: 'string' }, amount: { type: 'number' } } },
      description: 'The invoices credited and how much of each',
    },
    total: { type: ['number', 'null'] },
    issued_at: { type: ['string', 'null'], format: 'date-time', description: 'When the PAC stamped it' },
    error: refusalSchema,
    xml_url: fileLinkSchema('XML'),
    pdf_url: fileLinkSchema('PDF'),
  },
} as const;
