/**
 * Arithmetic rules on a POST /v1/qrs body, with SAT's rounding (Anexo 20): each concept's amount is
 * unit_price × quantity, each tax amount is taxable_base × rate, and subtotal and amount (the total) are
 * what the concepts and their grouped taxes add up to, at the currency's decimals.
 * Amounts are written in the CFDI with at least the currency's decimals, quantities and unit prices with
 * six; the tolerances below are computed for exactly those written forms.
 *
 * Every amount may come with the contract's six decimals (a fuel POS: 1.333 L at 14.995). Rounding to the
 * currency's decimals is the CFDI's rule, not the request's: subtotal and amount are accepted when they are
 * what the invoice will say (SubTotal and Total with SAT's rounding) or the exact sums rounded to the
 * decimals the POS wrote; anything else no rounding reconciles.
 */
import type { Decimal } from 'decimal.js';
import {
  QUANTITY_DECIMALS,
  UNIT_PRICE_DECIMALS,
  conceptAmountLimits,
  documentTotals,
  groupTaxes,
  taxAmountLimits,
  withinLimits,
  writtenDecimals,
  type Limits,
  type TaxLine,
} from '../domain/cfdi/anexo20-amounts.js';
import type { ErrorDetail } from '../platform/errors.js';
import { dec } from '../domain/money.js';
import type { QrCreateRequest } from './qr-request.js';
import type { RuleContext } from './check-qr-catalogs.js';

/** Used only to keep checking arithmetic when the currency itself was refused. */
const FALLBACK_DECIMALS = 2;

function range(limits: Limits): string {
  return limits.low.equals(limits.high) ? limits.low.toString() : `${limits.low.toString()} to ${limits.high.toString()}`;
}

export function checkQrAmounts(request: QrCreateRequest, ctx: RuleContext): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const cd = ctx.catalogs.currencyDecimals(request.currency) ?? FALLBACK_DECIMALS;
  const money = (value: number): number => writtenDecimals(value, cd);
  const taxLines: TaxLine[] = [];
  const concepts: { amount: Decimal; discount?: Decimal }[] = [];
  let exactTaxes = dec(0);
  /** The first tax line of each document-level group (Anexo 20 groups transfers by tax, factor and rate, withholdings by tax). */
  const firstOfGroup = new Map<string, string>();
  const groupKey = (t: { type: string; tax: string; factor: string; rate?: string }) => (t.type === 'Traslado' ? `T|${t.tax}|${t.factor}|${t.rate ?? ''}` : `R|${t.tax}`);

  request.operation_data.forEach((c, i) => {
    const field = `operation_data[${i}]`;
    const amount = dec(c.amount);
    const limits = conceptAmountLimits(dec(c.quantity), QUANTITY_DECIMALS, dec(c.unit_price), UNIT_PRICE_DECIMALS, money(c.amount));
    if (!withinLimits(amount, limits)) {
      out.push({ field: `${field}.amount`, code: 'concept_amount_mismatch', message: `amount must be unit_price × quantity (${range(limits)}), got ${amount.toString()}.` });
    }
    const discount = c.discount === undefined ? undefined : dec(c.discount);
    if (discount?.greaterThan(amount)) {
      out.push({ field: `${field}.discount`, code: 'discount_exceeds_amount', message: `discount ${discount.toString()} exceeds the concept amount ${amount.toString()}.` });
    }
    concepts.push({ amount, discount });

    (c.taxes ?? []).forEach((t, j) => {
      if (!firstOfGroup.has(groupKey(t))) firstOfGroup.set(groupKey(t), `${field}.taxes[${j}].taxable_base`);
      const base = dec(t.taxable_base);
      if (t.factor === 'Exento') {
        taxLines.push({ direction: t.type, tax: t.tax, factor: t.factor, base });
        return;
      }
      // Missing rate or amount is reported by the catalog rules; nothing to compute here.
      if (t.rate === undefined || t.amount === undefined) return;
      const taxAmount = dec(t.amount);
      const taxLimits = taxAmountLimits(base, money(t.taxable_base), dec(t.rate), money(t.amount));
      if (!withinLimits(taxAmount, taxLimits)) {
        out.push({
          field: `${field}.taxes[${j}].amount`,
          code: 'tax_amount_mismatch',
          message: `amount must be taxable_base × rate (${range(taxLimits)}), got ${taxAmount.toString()}.`,
        });
      }
      taxLines.push({ direction: t.type, tax: t.tax, factor: t.factor, rate: t.rate, base, amount: taxAmount });
      exactTaxes = t.type === 'Traslado' ? exactTaxes.plus(taxAmount) : exactTaxes.minus(taxAmount);
    });
  });

  const groups = groupTaxes(taxLines, cd);
  // The document's Impuestos node writes each group's Base at the currency's decimals, and SAT's XSD wants it
  // at least 0.000001: bases that add up to less than half a cent cannot be invoiced with that tax.
  for (const g of groups) {
    if (!g.base.isZero()) continue;
    const field = firstOfGroup.get(groupKey({ type: g.direction, tax: g.tax, factor: g.factor, rate: g.rate })) ?? 'operation_data';
    out.push({
      field,
      code: 'tax_base_rounds_to_zero',
      expected: g.base.toFixed(cd),
      message: `The taxable bases of tax ${g.tax} (${g.factor}${g.rate ? ` ${g.rate}` : ''}) add up to less than the smallest amount ${request.currency} writes; SAT's schema refuses a tax summary with Base 0.`,
    });
  }
  const totals = documentTotals(concepts, groups, cd);
  const exactSubtotal = concepts.reduce((sum, c) => sum.plus(c.amount), dec(0));
  const exactTotal = concepts.reduce((sum, c) => sum.minus(c.discount ?? 0), exactSubtotal).plus(exactTaxes);
  for (const [field, value, invoiceValue, exact, code, what] of [
    ['subtotal', request.subtotal, totals.subtotal, exactSubtotal, 'subtotal_mismatch', 'the sum of the concept amounts'],
    ['amount', request.amount, totals.total, exactTotal, 'total_mismatch', 'subtotal − discounts + transferred taxes − withheld taxes'],
  ] as const) {
    const sent = dec(value);
    if (!sent.equals(invoiceValue) && !sent.equals(exact.toDecimalPlaces(writtenDecimals(value, cd)))) {
      out.push({
        field,
        code,
        expected: invoiceValue.toFixed(cd),
        message: `${field} must be ${what}: the invoice will say ${invoiceValue.toFixed(cd)} (exactly ${exact.toString()}), got ${sent.toString()}.`,
      });
    }
  }

  if (request.currency === 'MXN' && request.exchange_rate !== undefined && request.exchange_rate !== null && request.exchange_rate !== 1) {
    out.push({ field: 'exchange_rate', code: 'exchange_rate_not_allowed', message: 'With currency MXN the exchange_rate is omitted or 1.' });
  }
  const max = ctx.catalogs.receiptMaxAmount(request.type_of_receipt);
  if (max !== undefined && max !== '' && dec(request.amount).greaterThan(max)) {
    out.push({ field: 'amount', code: 'amount_exceeds_receipt_limit', message: `amount exceeds the ${max} SAT allows for receipt type ${request.type_of_receipt}.` });
  }
  return out;
}
