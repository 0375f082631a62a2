/**
 * A payment complement (CFDI type P, Pagos 2.0) from a payment and where each paid invoice stands at the
 * moment of recording (its balance and next installment, read with the invoice locked). The caller's
 * `installment` / `previous_balance`, when given, are assertions about that standing: a different one
 * means another payment (or this one, retried) was recorded in between, so nothing is issued (409).
 */
import type { Decimal } from 'decimal.js';
import type { CfdiPaidDocument, CfdiPaymentInput, PaidInvoiceTax } from '../domain/cfdi/cfdi-input.js';
import type { ErrorDetail } from '../platform/errors.js';
import { dec } from '../domain/money.js';
import type { InvoicePdfData, InvoicePdfTax } from '../pdf/invoice-pdf-data.js';
import { equivalenceFor, paidAtOf, type PaidInvoiceFacts } from './check-payment.js';
import type { PaymentRequest } from './payment-request.js';

/** Where an invoice stands before this payment. */
export interface InvoiceStanding {
  /** Total − what live credit notes credit − what live payment complements paid. */
  balance: Decimal;
  /** The lowest installment number no live complement of the invoice holds. */
  installment: number;
}

export interface PlannedInvoice extends PaidInvoiceFacts {
  assertedInstallment?: number;
  assertedPreviousBalance?: Decimal;
  standing: InvoiceStanding;
}

export interface PaymentAllocation {
  uuid: string;
  installment: number;
  previousBalance: Decimal;
  amountPaid: Decimal;
  remainingBalance: Decimal;
}

/** The document to build, without the folio and date it gets when sealed. */
export type PaymentComplementDocument = Omit<CfdiPaymentInput, 'series' | 'folio' | 'issuedLocal'>;

export type PaymentComplementPlan =
  { ok: true; document: PaymentComplementDocument; allocations: PaymentAllocation[] } | { ok: false; reason: 'balance_changed' | 'refused'; details: ErrorDetail[] };

/** The invoice's taxes as its concepts state them, with their bases: what each payment carries its share of. */
function invoiceTaxes(data: InvoicePdfData): PaidInvoiceTax[] {
  const paid =
    (type: PaidInvoiceTax['type']) =>
    (t: InvoicePdfTax): PaidInvoiceTax => ({
      type,
      tax: t.tax.code,
      factor: t.factor ?? 'Tasa',
      rate: t.rate,
      base: dec(t.base ?? '0'),
    });
  return data.concepts.flatMap((c) => [...c.transfers.map(paid('Traslado')), ...c.withholdings.map(paid('Retencion'))]);
}

function paidDocument(invoice: PlannedInvoice, allocation: PaymentAllocation, payment: PaymentRequest, currencyDecimals: number): CfdiPaidDocument {
  const d = invoice.data;
  const taxes = invoiceTaxes(d);
  return {
    uuid: invoice.uuid,
    series: d.series,
    folio: d.folio,
    currency: d.currency.code,
    currencyDecimals,
    equivalence: d.currency.code === payment.currency ? undefined : equivalenceFor(invoice, payment.currency),
    installment: allocation.installment,
    previousBalance: allocation.previousBalance,
    amountPaid: allocation.amountPaid,
    // ObjetoImpDR 02 carries the invoice's taxes in proportion to what is paid; an invoice without taxes is 01.
    taxObject: taxes.length > 0 ? '02' : '01',
    invoiceTaxes: taxes.length > 0 ? { total: dec(d.total), taxes } : undefined,
  };
}

export function planPaymentComplement(payment: PaymentRequest, invoices: readonly PlannedInvoice[], currencyDecimals: (currency: string) => number): PaymentComplementPlan {
  const changed: ErrorDetail[] = [];
  invoices.forEach((invoice, i) => {
    const { balance, installment } = invoice.standing;
    if (invoice.assertedInstallment !== undefined && invoice.assertedInstallment !== installment) {
      changed.push({
        field: `related[${i}].installment`,
        code: 'balance_changed',
        message: `Invoice ${invoice.uuid}'s next installment is ${installment}, not ${invoice.assertedInstallment}: another payment was recorded.`,
      });
    }
    if (invoice.assertedPreviousBalance !== undefined && !invoice.assertedPreviousBalance.equals(balance)) {
      changed.push({
        field: `related[${i}].previous_balance`,
        code: 'balance_changed',
        message: `Invoice ${invoice.uuid}'s balance is ${balance.toString()}, not ${invoice.assertedPreviousBalance.toString()}.`,
      });
    }
  });
  if (changed.length > 0) return { ok: false, reason: 'balance_changed', details: changed };

  const refused: ErrorDetail[] = [];
  invoices.forEach((invoice, i) => {
    if (invoice.amountPaid.greaterThan(invoice.standing.balance)) {
      const owed = invoice.standing.balance.greaterThan(0) ? `${invoice.standing.balance.toString()} is owed` : 'nothing is owed';
      refused.push({ field: `related[${i}].amount_paid`, code: 'exceeds_balance', message: `Invoice ${invoice.uuid}: ${owed}, less than ${invoice.amountPaid.toString()}.` });
    }
  });
  if (refused.length > 0) return { ok: false, reason: 'refused', details: refused };

  const allocations = invoices.map((invoice): PaymentAllocation => ({
    uuid: invoice.uuid,
    installment: invoice.standing.installment,
    previousBalance: invoice.standing.balance,
    amountPaid: invoice.amountPaid,
    remainingBalance: invoice.standing.balance.minus(invoice.amountPaid),
  }));
  const first = invoices[0]!.data;
  const r = first.receiver;
  return {
    ok: true,
    allocations,
    document: {
      type: 'P',
      expeditionPlace: first.placeOfIssue,
      issuer: { rfc: first.issuer.rfc, name: first.issuer.name, taxRegime: first.issuer.taxRegime.code },
      receptor: { rfc: r.rfc, name: r.name, taxRegime: r.taxRegime.code, postalCode: r.taxZipCode, taxResidence: r.foreignResidence?.code },
      payments: [
        {
          paidAt: paidAtOf(payment.date),
          form: payment.sat_payment_form,
          currency: payment.currency,
          currencyDecimals: currencyDecimals(payment.currency),
          exchangeRate: payment.currency === 'MXN' ? undefined : dec(payment.exchange_rate ?? 1),
          amount: dec(payment.amount),
          operationNumber: payment.operation_number,
          documents: invoices.map((invoice, i) => paidDocument(invoice, allocations[i]!, payment, currencyDecimals(invoice.data.currency.code))),
        },
      ],
    },
  };
}

/** The lowest installment number not in `taken`: 1 + the live ones, unless a cancelled complement left its number free. */
export function nextInstallment(taken: readonly number[]): number {
  const used = new Set(taken);
  let n = 1;
  while (used.has(n)) n += 1;
  return n;
}
