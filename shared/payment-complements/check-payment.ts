/**
 * The rules of a payment that need no balance: the payment's own keys and amounts, and what the paid
 * invoices are (stamped type I issued PPD, one issuer, one receptor). Every problem, not the first.
 * The balances are decided later, with the invoices locked (plan-payment-complement.ts).
 */
import type { Decimal } from 'decimal.js';
import { EQUIVALENCE_DECIMALS, paidAmountFloor } from '../domain/cfdi/pagos20-amounts.js';
import type { ErrorDetail } from '../platform/errors.js';
import { dec, Money } from '../domain/money.js';
import type { InvoicePdfData } from '../pdf/invoice-pdf-data.js';
import type { SatCatalogs } from '../sat/catalogs.js';
import type { PaymentRequest } from './payment-request.js';

export interface PaidInvoiceFacts {
  uuid: string;
  /** The stamped invoice as read from its XML. */
  data: InvoicePdfData;
  amountPaid: Decimal;
  equivalence?: Decimal;
}

export interface PaymentContext {
  catalogs: SatCatalogs;
  /** Now, as a local wall-clock time in the invoices' zone. */
  nowLocal: string;
}

/** The payment's date as written in FechaPago: a date alone is paid at noon (SAT's guide, when the hour is unknown). */
export function paidAtOf(date: string): string {
  return date.length === 10 ? `${date}T12:00:00` : date;
}

/** Whether `date` (YYYY-MM-DD, optionally THH:mm:ss) names a real moment of the calendar. */
export function isCalendarDate(date: string): boolean {
  const parsed = new Date(`${paidAtOf(date)}Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 19) === paidAtOf(date);
}

/** EquivalenciaDR as the builder writes it: 1 for the payment's own currency. */
export function equivalenceFor(invoice: PaidInvoiceFacts, paymentCurrency: string): Decimal {
  return invoice.data.currency.code === paymentCurrency ? new Money(1) : new Money(invoice.equivalence ?? 1).toDecimalPlaces(EQUIVALENCE_DECIMALS);
}

/** The payment's own fields; the decimals of its currency when that is one a payment can be made in. */
function checkPaymentFields(payment: PaymentRequest, ctx: PaymentContext, out: ErrorDetail[]): number | undefined {
  const today = ctx.nowLocal.slice(0, 10);
  // Compared as written: a date alone against the date part only.
  if (payment.date > ctx.nowLocal.slice(0, payment.date.length)) {
    out.push({ field: 'payment.date', code: 'in_the_future', message: `A payment is recorded once received; ${payment.date} is after now (${ctx.nowLocal}).` });
  }
  const form = ctx.catalogs.check('c_FormaPago', payment.sat_payment_form, today);
  if (!form.ok) out.push({ field: 'payment.sat_payment_form', code: 'invalid_value', message: `${payment.sat_payment_form} is not a c_FormaPago key in force.` });
  else if (payment.sat_payment_form === '99')
    out.push({ field: 'payment.sat_payment_form', code: 'not_allowed', message: 'A payment received has a known form; 99 (por definir) is not one.' });

  if (!ctx.catalogs.check('c_Moneda', payment.currency, today).ok) {
    out.push({ field: 'payment.currency', code: 'invalid_value', message: `${payment.currency} is not a c_Moneda key in force.` });
    return undefined;
  }
  if (payment.currency === 'XXX') {
    out.push({ field: 'payment.currency', code: 'not_allowed', message: "A payment is made in a currency; XXX is only the type P CFDI's own." });
    return undefined;
  }
  if (payment.currency === 'MXN' && payment.exchange_rate !== undefined && !dec(payment.exchange_rate).equals(1)) {
    out.push({ field: 'payment.exchange_rate', code: 'not_allowed', message: 'A payment in MXN has exchange rate 1 (or none).' });
  }
  if (payment.currency !== 'MXN' && payment.exchange_rate === undefined) {
    out.push({ field: 'payment.exchange_rate', code: 'required', message: `exchange_rate (MXN per ${payment.currency}) is required for a payment in ${payment.currency}.` });
  }
  const decimals = ctx.catalogs.currencyDecimals(payment.currency) ?? 2;
  if (dec(payment.amount).decimalPlaces() > decimals) {
    out.push({ field: 'payment.amount', code: 'too_many_decimals', message: `${payment.currency} amounts have at most ${decimals} decimals.` });
  }
  return decimals;
}

function checkInvoice(
  invoice: PaidInvoiceFacts,
  i: number,
  first: InvoicePdfData,
  payment: PaymentRequest,
  paymentCurrencyKnown: boolean,
  ctx: PaymentContext,
  out: ErrorDetail[],
): void {
  const d = invoice.data;
  const at = (name: string) => `related[${i}].${name}`;
  if (d.receiptType.code !== 'I')
    out.push({ field: at('uuid'), code: 'not_an_invoice', message: `${invoice.uuid} is a CFDI of type ${d.receiptType.code}; payments are received for invoices (I).` });
  else if (d.paymentMethod?.code !== 'PPD') {
    out.push({
      field: at('uuid'),
      code: 'not_ppd',
      message: `${invoice.uuid} was issued ${d.paymentMethod?.code ?? 'without MetodoPago'}: it was paid when issued; only a PPD invoice takes payment complements.`,
    });
  }
  if (d.issuer.rfc !== first.issuer.rfc) out.push({ field: at('uuid'), code: 'other_issuer', message: 'Every invoice of one payment must have the same issuer.' });
  if (d.receiver.rfc !== first.receiver.rfc)
    out.push({ field: at('uuid'), code: 'other_receptor', message: 'Every invoice of one payment must have the same receptor (the payer).' });
  if (payment.date < d.date.slice(0, payment.date.length)) {
    out.push({ field: 'payment.date', code: 'before_invoice', message: `Invoice ${invoice.uuid} was issued ${d.date}; a payment for it cannot be earlier.` });
  }
  const decimals = ctx.catalogs.currencyDecimals(d.currency.code) ?? 2;
  if (invoice.amountPaid.decimalPlaces() > decimals) {
    out.push({ field: at('amount_paid'), code: 'too_many_decimals', message: `The invoice is in ${d.currency.code}: at most ${decimals} decimals.` });
  }
  const sameCurrency = d.currency.code === payment.currency;
  if (paymentCurrencyKnown && !sameCurrency && invoice.equivalence === undefined) {
    out.push({
      field: at('equivalence'),
      code: 'required',
      message: `The invoice is in ${d.currency.code} and the payment in ${payment.currency}: give how many ${d.currency.code} one ${payment.currency} is worth.`,
    });
  }
  if (sameCurrency && invoice.equivalence !== undefined && !invoice.equivalence.equals(1)) {
    out.push({ field: at('equivalence'), code: 'not_allowed', message: 'The invoice and the payment are in the same currency: the equivalence is 1.' });
  }
  if (invoice.equivalence !== undefined && invoice.equivalence.decimalPlaces() > EQUIVALENCE_DECIMALS) {
    out.push({ field: at('equivalence'), code: 'too_many_decimals', message: `EquivalenciaDR has at most ${EQUIVALENCE_DECIMALS} decimals.` });
  }
}

export function checkPayment(payment: PaymentRequest, invoices: readonly PaidInvoiceFacts[], ctx: PaymentContext): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const paymentDecimals = checkPaymentFields(payment, ctx, out);
  const first = invoices[0]!.data;
  invoices.forEach((invoice, i) => checkInvoice(invoice, i, first, payment, paymentDecimals !== undefined, ctx, out));
  if (out.length > 0 || paymentDecimals === undefined) return out;
  // SAT's CRP20217, as the self-check applies it: what the invoices are paid, converted, fits in Monto.
  const paid = invoices.reduce((sum, invoice) => {
    const equivalence = equivalenceFor(invoice, payment.currency);
    const decimals = ctx.catalogs.currencyDecimals(invoice.data.currency.code) ?? 2;
    return sum.plus(paidAmountFloor(invoice.amountPaid, decimals, equivalence, equivalence.decimalPlaces(), invoice.data.currency.code === payment.currency, paymentDecimals));
  }, new Money(0));
  if (paid.greaterThan(payment.amount)) {
    out.push({
      field: 'payment.amount',
      code: 'exceeds_payment',
      message: `The invoices are paid ${paid.toFixed(paymentDecimals)} ${payment.currency} converted, more than the payment's ${payment.amount}.`,
    });
  }
  return out;
}
