import { UnwritableXmlError } from '../domain/cfdi/serialize-xml.js';
import { codePointName, isXmlChar } from '../domain/cfdi/xml-chars.js';
import type { InvoiceRefusal } from '../repositories/invoices.js';

/** The value as a person can read it: what XML cannot hold, and "|", as their code points; at most 100 characters. */
function readable(value: string): string {
  return [...value.slice(0, 100)]
    .map((c) => {
      const codePoint = c.codePointAt(0) ?? 0;
      return isXmlChar(codePoint) && c !== '|' ? c : `<${codePointName(codePoint)}>`;
    })
    .join('');
}

/**
 * The refusal of a document that cannot be built from what is stored (issue #38): the serializer refuses
 * a character XML cannot hold, or the build refuses a value it cannot write (a RangeError of the pure build:
 * an amount it cannot put in words, a payment's missing exchange rate). Building again from the same rows
 * fails the same way, so the stamp job records this at once instead of retrying. Undefined for any other
 * error (a timeout, the database), which is retried.
 */
export function unbuildableRefusal(err: unknown): InvoiceRefusal | undefined {
  if (err instanceof UnwritableXmlError) {
    return {
      code: 'invoice_unbuildable',
      message: `The CFDI cannot be built: ${err.field} holds ${err.character}, which XML 1.0 (and so SAT) cannot hold.`,
      details: [{ field: err.field, code: 'unwritable_character', message: `${err.field} "${readable(err.value)}" holds ${err.character}.`, source: 'service' }],
    };
  }
  if (err instanceof RangeError) {
    return {
      code: 'invoice_unbuildable',
      message: `The CFDI cannot be built: ${err.message}.`,
      details: [{ field: '(document)', code: 'unbuildable', message: err.message, source: 'service' }],
    };
  }
  return undefined;
}
