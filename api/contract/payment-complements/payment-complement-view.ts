import type { FromSchema } from 'json-schema-to-ts';
import { invoiceFileUrl } from '../../../shared/invoices/invoice-links.js';
import { storedDocument } from '../../../shared/invoices/stored-document.js';
import { toJsonNumber } from '../../../shared/domain/money.js';
import type { AllocationView } from '../../../shared/repositories/payment-complements.js';
import type { InvoiceRow } from '../../../shared/repositories/invoices.js';
import type { paymentComplementSchema } from './payment-complement-schema.js';

// Typed from the schema the OpenAPI document publishes: the compiler holds the view to it.
export type PaymentComplement = FromSchema<typeof paymentComplementSchema>;

/** PaymentComplement: the payment as recorded, what it paid of each invoice and, once stamped, its UUID and the links to its files. */
export function paymentComplementView(complement: InvoiceRow, related: AllocationView[], ctx: { publicBaseUrl: string; urlSigningKey: string }): PaymentComplement {
  const { input } = storedDocument(complement.document);
  if (input.type !== 'P') throw new Error(`invoice ${complement.id} is not a payment complement`);
  const payment = input.payments[0]!;
  const uuid = complement.uuid;
  return {
    id: complement.id,
    type: 'P' as const,
    status: complement.status,
    uuid,
    series: complement.series,
    folio: complement.folio,
    payment: {
      date: payment.paidAt,
      sat_payment_form: payment.form,
      currency: payment.currency,
      exchange_rate: payment.exchangeRate === undefined ? null : toJsonNumber(payment.exchangeRate),
      amount: toJsonNumber(payment.amount),
      operation_number: payment.operationNumber ?? null,
    },
    related: related.map((r) => ({
      uuid: r.uuid,
      installment: r.installment,
      previous_balance: toJsonNumber(r.previous_balance),
      amount_paid: toJsonNumber(r.amount_paid),
      remaining_balance: toJsonNumber(r.remaining_balance),
    })),
    issued_at: complement.stamped_at?.toISOString() ?? null,
    error: complement.status === 'REFUSED' ? complement.refusal : null,
    xml_url: uuid ? invoiceFileUrl(ctx.publicBaseUrl, uuid, 'xml', ctx.urlSigningKey) : null,
    pdf_url: uuid ? invoiceFileUrl(ctx.publicBaseUrl, uuid, 'pdf', ctx.urlSigningKey) : null,
  };
}
