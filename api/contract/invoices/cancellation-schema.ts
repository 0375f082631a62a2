/** DELETE /v1/qrs/invoices/{uuid}: why the CFDI is cancelled (SAT's c_MotivoCancelacion) and, for 01, what replaces it. */
import type { FromSchema } from 'json-schema-to-ts';
export const cancelInvoiceRequestSchema = {
  $id: 'CancelInvoiceRequest',
  type: 'object',
  additionalProperties: false,
  required: ['motive'],
  properties: {
    motive: {
      type: 'string',
      enum: ['01', '02', '03', '04'],
      description:
        '01 issued with errors, with a relation (needs substitution_uuid); 02 issued with errors, without a relation; 03 the operation did not happen; 04 nominative operation related in a global invoice.',
    },
    substitution_uuid: {
      type: 'string',
      format: 'uuid',
      description: 'Only with motive 01: the UUID of the stamped CFDI that replaces this one, related to it with TipoRelacion 04.',
    },
  },
} as const;

export type CancelInvoiceRequest = FromSchema<typeof cancelInvoiceRequestSchema>;

export const invoiceCancellationSchema = {
  $id: 'InvoiceCancellation',
  type: 'object',
  required: ['uuid', 'invoice_status', 'status', 'motive', 'substitution_uuid', 'acceptance', 'acceptance_reason', 'requested_at', 'resolved_at', 'acuse_available', 'refusal'],
  properties: {
    uuid: { type: 'string', description: 'The fiscal UUID of the invoice being cancelled.' },
    invoice_status: { type: 'string', enum: ['ACTIVE', 'CANCELLING', 'CANCELLATION_PENDING', 'CANCELLED', 'CANCELLATION_REJECTED'] },
    status: {
      type: 'string',
      enum: ['REQUESTED', 'PENDING', 'CANCELLED', 'REJECTED', 'FAILED'],
      description:
        'REQUESTED: being sent to the PAC; PENDING: SAT waits for the receptor (up to 3 business days, then it is cancelled); CANCELLED; REJECTED: the receptor refused, the invoice stays valid; FAILED: the PAC or SAT refused the request (see refusal).',
    },
    motive: { type: 'string' },
    substitution_uuid: { type: ['string', 'null'] },
    acceptance: {
      type: 'string',
      enum: ['NOT_REQUIRED', 'REQUIRED'],
      description: 'Whether SAT asks the receptor before cancelling (RMF 2.7.1.35), as the service judged it before sending.',
    },
    acceptance_reason: { type: 'string', enum: ['not_income', 'amount_up_to_1000', 'publico_en_general', 'foreign_receptor', 'next_business_day', 'receptor_must_accept'] },
    sat_status: { type: ['string', 'null'], description: "SAT's EstatusCancelacion as last read." },
    requested_at: { type: 'string', format: 'date-time' },
    resolved_at: { type: ['string', 'null'], format: 'date-time' },
    acuse_available: { type: 'boolean', description: "SAT's acknowledgement, at GET /v1/qrs/invoices/uuid/{uuid}/cancellation-acuse." },
    refusal: {
      type: ['object', 'null'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, source: { type: 'string' } },
      description: "Why a FAILED request was refused; code is the PAC's own (e.g. CA205).",
    },
  },
} as const;
