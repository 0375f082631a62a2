import { Decimal } from 'decimal.js';
import type { CfdiInput, CfdiPaymentInput } from '../domain/cfdi/cfdi-input.js';
import { Money } from '../domain/money.js';

/** A CFDI built from what the merchant asked rather than from a QR sale: credit notes, payment complements, global invoices. */
export type StoredInput = Omit<CfdiInput, 'series' | 'folio' | 'issuedLocal'> | Omit<CfdiPaymentInput, 'series' | 'folio' | 'issuedLocal'>;

export interface StoredDocument {
  /** The zone Fecha is written in when the document is sealed. */
  timeZone: string;
  input: StoredInput;
}

const DECIMAL = '$decimal';

/**
 * `invoices.document` (jsonb): every decimal is written as `{ "$decimal": "<exact text>" }` and read back as
 * a decimal, never as a JavaScript number, whatever the document's shape.
 */
export function storedDocumentJson(document: StoredDocument): string {
  return JSON.stringify({ time_zone: document.timeZone, input: document.input }, function replacer(this: Record<string, unknown>, key: string, value: unknown) {
    // `this[key]` is the value before Decimal's own toJSON turned it into a string.
    const raw = this[key];
    return raw instanceof Decimal ? { [DECIMAL]: raw.toString() } : value;
  });
}

export function storedDocument(stored: unknown): StoredDocument {
  const revived = JSON.parse(JSON.stringify(stored), (_key, value: unknown) => {
    if (value !== null && typeof value === 'object' && DECIMAL in value) return new Money((value as Record<string, string>)[DECIMAL]!);
    return value;
  }) as { time_zone: string; input: StoredInput };
  return { timeZone: revived.time_zone, input: revived.input };
}
