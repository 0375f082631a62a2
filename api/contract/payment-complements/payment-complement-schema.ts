/** POST /v1/qrs/invoices/payment-complements: one payment received and the PPD invoices it pays. */
import type { FromSchema } from 'json-schema-to-ts';
import type { PaymentRequest } from '../../../shared/payment-complements/payment-request.js';
import type { Proof, SameType } from '../same-type.js';
import { fileLinkSchema, invoiceStatusSchema, nullableString, refusalSchema } from '../document-view-schema.js';
export const createPaymentComplementSchema = {
  $id: 'PaymentComplementRequest',
  type: 'object',
  additionalProperties: false,
  required: ['payment', 'related'],
  properties: {
    payment: {
      type: 'object',
      additionalProperties: false,
      required: ['date', 'sat_payment_form', 'currency', 'amount'],
      properties: {
        date: {
          type: 'string',
          pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2})?$',
          description:
            'When the money was received (FechaPago), local wall-clock time without offset: `2025-03-14T10:30:00`, or a date alone (written 12:00:00, as SAT asks when the hour is unknown). Not in the future, not before the invoices.',
        },
        sat_payment_form: { type: 'string', pattern: '^[0-9]{2}$', description: 'c_FormaPago the money came with (FormaDePagoP), not 99.' },
        currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'c_Moneda of the payment (MonedaP), not XXX.' },
        exchange_rate: {
          type: 'number',
          exclusiveMinimum: 0,
          'x-decimal': true,
          description: 'MXN per unit of `currency` (TipoCambioP); required unless MXN (then omitted or 1).',
        },
        amount: {
          type: 'number',
          exclusiveMinimum: 0,
          'x-decimal': true,
          description: 'What was received (Monto), in `currency`, at most its decimals; at least what the related invoices are paid, converted.',
        },
        operation_number: { type: 'string', pattern: '^[^|]{1,100}$', description: "The bank's reference of the transfer, cheque number… (NumOperacion)." },
      },
    },
    related: {
      type: 'array',
      minItems: 1,
      maxItems: 50,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['uuid', 'amount_paid'],
        properties: {
          uuid: { type: 'string', format: 'uuid', description: 'Fiscal UUID of a stamped invoice (type I, MetodoPago PPD) of these credentials.' },
          amount_paid: {
            type: 'number',
            exclusiveMinimum: 0,
            'x-decimal': true,
            description: "How much of that invoice this payment settles (ImpPagado), in the invoice's currency; at most its balance.",
          },
          equivalence: {
            type: 'number',
            exclusiveMinimum: 0,
            description:
              "Units of the invoice's currency worth one unit of the payment's (EquivalenciaDR, up to 10 decimals); required when the currencies differ, omitted (or 1) when equal.",
          },
          installment: {
            type: 'integer',
            minimum: 1,
            description: 'Optional assertion: the installment number (NumParcialidad) this payment should be. A different one is 409 balance_changed.',
          },
          previous_balance: {
            type: 'number',
            exclusiveMinimum: 0,
            'x-decimal': true,
            description: 'Optional assertion: the balance before this payment (ImpSaldoAnt). A different one is 409 balance_changed.',
          },
        },
      },
      description: 'The invoices paid (DoctoRelacionado): same issuer and receptor; the service numbers the installment and computes the balances.',
    },
  },
} as const;

// What ajv validates is the payment-complements feature's PaymentRequest, field for field: a change on one side alone fails tsc.
type _ValidatesPaymentRequest = Proof<SameType<CreatePaymentComplementRequest['payment'], PaymentRequest>>;

export type PaidInvoiceRequest = CreatePaymentComplementRequest['related'][number];

export type CreatePaymentComplementRequest = FromSchema<typeof createPaymentComplementSchema>;

const amount = { type: 'number' } as const;

/** A payment complement as the API answers it (payment-complement-view.ts builds it). */
export const paymentComplementSchema = {
  $id: 'PaymentComplement',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'status', 'uuid', 'series', 'folio', 'payment', 'related', 'issued_at', 'error', 'xml_url', 'pdf_url'],
  properties: {
    id: { type: 'string' },
    type: { type: 'string', const: 'P', description: 'c_TipoDeComprobante P (pago)' },
    status: invoiceStatusSchema,
    uuid: { ...nullableString, description: 'Fiscal folio; null until stamped' },
    series: nullableString,
    folio: { type: 'string' },
    payment: {
      type: 'object',
      additionalProperties: false,
      required: ['date', 'sat_payment_form', 'currency', 'exchange_rate', 'amount', 'operation_number'],
      description: 'The payment as recorded (Pagos 2.0 Pago)',
      properties: {
        date: { type: 'string', description: 'FechaPago, local wall-clock time' },
        sat_payment_form: { type: 'string', description: 'c_FormaPago' },
        currency: { type: 'string' },
        exchange_rate: { type: ['number', 'null'] },
        amount,
        operation_number: nullableString,
      },
    },
    related: {
      type: 'array',
      description: 'Each invoice paid (DoctoRelacionado): installment and balances, computed here',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['uuid', 'installment', 'previous_balance', 'amount_paid', 'remaining_balance'],
        properties: { uuid: { type: 'string' }, installment: { type: 'integer', minimum: 1 }, previous_balance: amount, amount_paid: amount, remaining_balance: amount },
      },
    },
    issued_at: { type: ['string', 'null'], format: 'date-time', description: 'When the PAC stamped it' },
    error: refusalSchema,
    xml_url: fileLinkSchema('XML'),
    pdf_url: fileLinkSchema('PDF'),
  },
} as const;
