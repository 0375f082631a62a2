/** DELETE /v1/qrs/invoices/{uuid}: why the CFDI is cancelled (SAT's c_MotivoCancelacion) and, for 01, what replaces it. */
import type { FromSchema } from 'json-schema-to-ts';
import { ATTENTION_CAUSES, CANCELLATION_MOVES, type CancellationStatus } from '../../../shared/domain/cancellation-lifecycle.js';
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
  required: [
    'uuid',
    'invoice_status',
    'status',
    'motive',
    'substitution_uuid',
    'acceptance',
    'acceptance_reason',
    'requested_at',
    'resolved_at',
    'acuse_available',
    'refusal',
    'attention',
  ],
  properties: {
    uuid: { type: 'string', description: 'The fiscal UUID of the invoice being cancelled.' },
    invoice_status: { type: 'string', enum: ['ACTIVE', 'CANCELLING', 'CANCELLATION_PENDING', 'CANCELLED', 'CANCELLATION_REJECTED'] },
    status: {
      type: 'string',
      enum: Object.keys(CANCELLATION_MOVES) as CancellationStatus[],
      description:
        "REQUESTED: being sent to the PAC; PENDING: SAT waits for the receptor (up to 3 business days, then it is cancelled); NOT_FOUND_AT_SAT: acknowledged, but SAT's status service does not know the CFDI yet (asked again for up to SAT_NOT_FOUND_GRACE_MS, 72 h); NEEDS_ATTENTION: no longer followed on its own (see attention), an operator retries or gives it up; CANCELLED; REJECTED: the receptor refused, the invoice stays valid; FAILED: the PAC refused the request, or an operator gave it up (see refusal).",
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
      properties: {
        code: { type: 'string', description: "The PAC's code (SW: CACFDI33 for every cancellation refusal), or given_up." },
        message: { type: 'string', description: "The PAC's message (SW: one generic text, e.g. Problemas con los campos.)." },
        detail: { type: ['string', 'null'], description: "The cause, as the PAC wrote it (SW's messageDetail, e.g. CA205 - UUID no existe)." },
        detail_code: { type: ['string', 'null'], description: 'The code the detail starts with (e.g. CA205, CR1310), if any.' },
        source: { type: 'string', enum: ['pac', 'operator'] },
      },
      description: 'Why a FAILED request ended: refused by the PAC (source pac), or given up by an operator (source operator).',
    },
    attention: {
      type: ['object', 'null'],
      properties: {
        cause: { type: 'string', enum: [...ATTENTION_CAUSES] },
        since: { type: 'string', format: 'date-time' },
      },
      description:
        "While NEEDS_ATTENTION: not_found_at_sat (SAT's status service never found the CFDI within the grace), sat_rejected_expression (SAT could not read the service's query: N - 601), pending_too_long (no answer long past the receptor's 3 business days).",
    },
  },
} as const;
