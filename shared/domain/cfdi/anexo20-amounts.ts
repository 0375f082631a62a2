/**
 * The arithmetic tolerances of CFDI 4.0 (Anexo 20, "Validaciones adicionales"), as plain decimal
 * functions. Every limit depends on how many decimals a value is *written* with in the XML, so callers
 * pass the decimals the document will carry (see `writtenDecimals`).
 */
import type { Decimal } from 'decimal.js';
import { Money, dec } from '../money.js';

const EPSILON = new Money('1e-12');

/**
 * The CFDI writes Cantidad and ValorUnitario with six decimals (10 → 10.000000): SAT's tolerance on
 * Importe shrinks with the decimals written, so this keeps `amount = unit_price × quantity` strict.
 */
export const QUANTITY_DECIMALS = 6;
export const UNIT_PRICE_DECIMALS = 6;

/** Half a unit of the last written decimal: 10^-d / 2. */
function halfUnit(decimals: number): Decimal {
  return new Money(10).pow(-decimals).div(2);
}

export interface Limits {
  low: Decimal;
  high: Decimal;
}

export function withinLimits(value: Decimal, limits: Limits): boolean {
  return value.greaterThanOrEqualTo(limits.low) && value.lessThanOrEqualTo(limits.high);
}

/**
 * Concepto/@Importe: at least (Cantidad − ½u) × (ValorUnitario − ½u) truncated, at most
 * (Cantidad + ½u − 10⁻¹²) × (ValorUnitario + ½u − 10⁻¹²) rounded up, to the Importe's decimals.
 */
export function conceptAmountLimits(quantity: Decimal, quantityDecimals: number, unitPrice: Decimal, unitPriceDecimals: number, amountDecimals: number): Limits {
  const q = halfUnit(quantityDecimals);
  const u = halfUnit(unitPriceDecimals);
  return {
    low: quantity.minus(q).times(unitPrice.minus(u)).toDecimalPlaces(amountDecimals, Money.ROUND_DOWN),
    high: quantity.plus(q).minus(EPSILON).times(unitPrice.plus(u).minus(EPSILON)).toDecimalPlaces(amountDecimals, Money.ROUND_UP),
  };
}

/** Traslado/Retencion @Importe: (Base ∓ ½u) × TasaOCuota, truncated / rounded up to the Importe's decimals. */
export function taxAmountLimits(base: Decimal, baseDecimals: number, rate: Decimal, amountDecimals: number): Limits {
  const b = halfUnit(baseDecimals);
  return {
    low: base.minus(b).times(rate).toDecimalPlaces(amountDecimals, Money.ROUND_DOWN),
    high: base.plus(b).minus(EPSILON).times(rate).toDecimalPlaces(amountDecimals, Money.ROUND_UP),
  };
}

/**
 * Decimals a value is written with in the XML: as given, but never fewer than `minimum`
 * (amounts carry at least the currency's decimals: 215 is written 215.00).
 */
export function writtenDecimals(value: Decimal | number | string, minimum = 0): number {
  return Math.max(dec(value).decimalPlaces(), minimum);
}

export interface TaxLine {
  direction: 'Traslado' | 'Retencion';
  tax: string;
  factor: string;
  /** six-decimal text, absent for Exento */
  rate?: string;
  base: Decimal;
  amount?: Decimal;
}

export interface TaxGroup {
  direction: 'Traslado' | 'Retencion';
  tax: string;
  factor: string;
  rate?: string;
  base: Decimal;
  amount: Decimal;
}

/**
 * The document-level Impuestos node: transfers grouped by tax, factor and rate, withholdings by tax,
 * each sum rounded to the currency's decimals (Anexo 20). Exempt transfers are grouped but carry no amount.
 */
export function groupTaxes(lines: readonly TaxLine[], currencyDecimals: number): TaxGroup[] {
  const groups = new Map<string, TaxGroup>();
  for (const line of lines) {
    const key = line.direction === 'Traslado' ? `T|${line.tax}|${line.factor}|${line.rate ?? ''}` : `R|${line.tax}`;
    const group = groups.get(key) ?? {
      direction: line.direction,
      tax: line.tax,
      factor: line.factor,
      rate: line.direction === 'Traslado' ? line.rate : undefined,
      base: new Money(0),
      amount: new Money(0),
    };
    group.base = group.base.plus(line.base);
    group.amount = group.amount.plus(line.amount ?? 0);
    groups.set(key, group);
  }
  return [...groups.values()].map((g) => ({
    ...g,
    base: g.base.toDecimalPlaces(currencyDecimals),
    amount: g.amount.toDecimalPlaces(currencyDecimals),
  }));
}

export interface DocumentTotals {
  subtotal: Decimal;
  discount: Decimal;
  transferred: Decimal;
  withheld: Decimal;
  total: Decimal;
}

/** SubTotal, Descuento, TotalImpuestosTrasladados/Retenidos and Total, each at the currency's decimals. */
export function documentTotals(concepts: readonly { amount: Decimal; discount?: Decimal }[], taxes: readonly TaxGroup[], currencyDecimals: number): DocumentTotals {
  const sum = (values: Decimal[]) => values.reduce((a, b) => a.plus(b), new Money(0)).toDecimalPlaces(currencyDecimals);
  const subtotal = sum(concepts.map((c) => c.amount));
  const discount = sum(concepts.map((c) => c.discount ?? new Money(0)));
  const transferred = sum(taxes.filter((t) => t.direction === 'Traslado' && t.factor !== 'Exento').map((t) => t.amount));
  const withheld = sum(taxes.filter((t) => t.direction === 'Retencion').map((t) => t.amount));
  return { subtotal, discount, transferred, withheld, total: subtotal.minus(discount).plus(transferred).minus(withheld) };
}
