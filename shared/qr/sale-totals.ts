import { documentTotals, groupTaxes, type DocumentTotals, type TaxLine } from '../domain/cfdi/anexo20-amounts.js';
import { dec } from '../domain/money.js';
import type { QrTransactionRecord } from '../repositories/qr-transactions.js';

/**
 * What the invoice of a recorded sale will say: SubTotal, Descuento, the tax totals and Total with
 * SAT's rounding at the currency's decimals, from the concepts and taxes the POS sent (which may carry
 * six decimals). Withholdings that depend on the buyer (RESICO) come on top at confirmation.
 */
export function saleTotals(record: Pick<QrTransactionRecord, 'concepts' | 'taxes'>, currencyDecimals: number): DocumentTotals {
  const lines: TaxLine[] = record.taxes.map((x) => ({
    direction: x.type,
    tax: x.tax,
    factor: x.factor,
    rate: x.rate ?? undefined,
    base: dec(x.taxable_base),
    amount: x.amount === null ? undefined : dec(x.amount),
  }));
  const concepts = record.concepts.map((c) => ({ amount: dec(c.amount), discount: c.discount === null ? undefined : dec(c.discount) }));
  return documentTotals(concepts, groupTaxes(lines, currencyDecimals), currencyDecimals);
}
