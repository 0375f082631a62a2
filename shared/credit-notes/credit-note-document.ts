import type { CfdiConceptInput, CfdiTaxInput } from '../cfdi/cfdi-input.js';
import { Money } from '../money.js';
import type { CreditNoteDocument } from './plan-credit-note.js';

interface StoredTax extends Omit<CfdiTaxInput, 'base' | 'amount'> {
  base: string;
  amount?: string;
}

interface StoredConcept extends Omit<CfdiConceptInput, 'quantity' | 'unitPrice' | 'amount' | 'discount' | 'taxes'> {
  quantity: string;
  unitPrice: string;
  amount: string;
  discount?: string;
  taxes: StoredTax[];
}

interface StoredDocument extends Omit<CreditNoteDocument, 'exchangeRate' | 'concepts'> {
  exchangeRate?: string;
  concepts: StoredConcept[];
}

/** `invoices.document` of a credit note: the document and the time zone its Fecha is written in. */
export function storedCreditNote(stored: unknown): { timeZone: string; input: CreditNoteDocument } {
  const { time_zone: timeZone, input } = stored as { time_zone: string; input: unknown };
  return { timeZone, input: documentFromJson(input) };
}

/**
 * The credit note's document as kept in `invoices.document` (jsonb): JSON.stringify writes each decimal as
 * its exact text, and this reads them back as decimals, never as JavaScript numbers.
 */
export function documentFromJson(stored: unknown): CreditNoteDocument {
  const doc = stored as StoredDocument;
  const money = (text: string | undefined) => (text === undefined ? undefined : new Money(text));
  return {
    ...doc,
    exchangeRate: money(doc.exchangeRate),
    concepts: doc.concepts.map((c) => ({
      ...c, quantity: new Money(c.quantity), unitPrice: new Money(c.unitPrice), amount: new Money(c.amount), discount: money(c.discount),
      taxes: c.taxes.map((t) => ({ ...t, base: new Money(t.base), amount: money(t.amount) })),
    })),
  };
}
