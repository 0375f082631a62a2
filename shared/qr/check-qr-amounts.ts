/**
 * Arithmetic rules on a POST /v1/qrs body, with SAT's rounding (Anexo 20): each concept's amount is
 * unit_price × quantity, each tax amount is taxable_base × rate, and subtotal and amount (the total) are
 * what the concepts and their grouped taxes add up to, at the currency's decimals.
 * Amounts are written in the CFDI with at least the currency's decimals, quantities and unit prices with
 * six; the tolerances below are computed for exactly those written forms.
 */
import type { Decimal } from 'decimal.js';
import {
  QUANTITY_DECIMALS, UNIT_PRICE_DECIMALS, conceptAmountLimits, documentTotals, groupTaxes, taxAmountLimits, withinLimits, writtenDecimals, type Limits, type TaxLine,
} from '../cfdi/anexo20-amounts.js';
import type { ErrorDetail } from '../errors.js';
import { dec } from '../money.js';
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
        out.push({ field: `${field}.taxes[${j}].amount`, code: 'tax_amount_mismatch', message: `amount must be taxable_base × rate (${range(taxLimits)}), got ${taxAmount.toString()}.` });
      }
      taxLines.push({ direction: t.type, tax: t.tax, factor: t.factor, rate: t.rate, base, amount: taxAmount });
    });
  });

  const totals = documentTotals(concepts, groupTaxes(taxLines, cd), cd);
  for (const [field, value, expected, code, what] of [
    ['subtotal', request.subtotal, totals.subtotal, 'subtotal_mismatch', 'the sum of the concept amounts'],
    ['amount', request.amount, totals.total, 'total_mismatch', 'subtotal − discounts + transferred taxes − withheld taxes'],
  ] as const) {
    if (writtenDecimals(value) > cd) {
      out.push({ field, code: 'too_many_decimals', message: `${field} has more than the ${cd} decimals ${request.currency} allows.` });
    } else if (!dec(value).equals(expected)) {
      out.push({ field, code, message: `${field} must be ${what}: ${expected.toFixed(cd)}, got ${dec(value).toFixed(cd)}.` });
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
