import { Decimal } from 'decimal.js';

// One Decimal flavour for the whole service: enough precision for numeric(15,6)
// products and SAT's half-up rounding.
export const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });

/** Reads a JSON number or a numeric column (string) exactly as written. */
export function dec(value: number | string | Decimal): Decimal {
  return new Money(typeof value === 'number' ? String(value) : value);
}

/** Number of decimals a value was written with (1.50 -> 1 for JSON numbers, "1.500000" -> 6). */
export function decimalPlaces(value: number | string): number {
  return new Money(typeof value === 'number' ? String(value) : value).decimalPlaces();
}

/** Digits before the decimal point, ignoring sign. */
export function integerDigits(value: number | string): number {
  const d = new Money(typeof value === 'number' ? String(value) : value).abs().floor();
  return d.isZero() ? 1 : d.toFixed(0).length;
}

/** A plain decimal text with at most 6 decimals: what numeric(15,6) columns read as. */
const SIX_DECIMALS = /^-?\d+(?:\.\d{1,6})?$/;

/**
 * Serializes a decimal as a JSON number with at most 6 decimals (numeric(15,6) never needs more). A column's
 * text with at most 6 decimals needs no rounding, and Number() rounds any spelling of one decimal value to
 * the same double: it is read directly (every view of every GET reads a score of them), the rest by Decimal.
 */
export function toJsonNumber(value: Decimal | string | number): number {
  if (typeof value === 'string' && SIX_DECIMALS.test(value)) return Number(value);
  return Number(dec(value).toDecimalPlaces(6).toString());
}

/** Fixed 6-decimal text, the form numeric(15,6) columns and SAT rates are written in. */
export function toFixed6(value: Decimal | string | number): string {
  return dec(value).toFixed(6);
}

/** An amount as a person reads it: thousands separated, at least `decimals` decimals ("1,160.00"). */
export function formatAmount(value: Decimal | string | number, decimals = 2): string {
  const d = dec(value);
  const [integer = '0', fraction] = d.toFixed(Math.max(decimals, d.decimalPlaces())).split('.');
  const grouped = integer.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction ? `${grouped}.${fraction}` : grouped;
}

/** Decimal text of a numeric column with the zeros beyond its significant places trimmed, at least two decimals ("116.000000" → "116.00"). */
export function decimalText(value: Decimal | string | number): string {
  const d = dec(value);
  return d.toFixed(Math.max(2, d.decimalPlaces()));
}
