import { UnwritableXmlError } from '../domain/cfdi/serialize-xml.js';
import type { InvoiceRefusal } from '../repositories/invoices.js';

/** The value as a person can read it: controls and "|" as their code points, at most 100 characters. */
function readable(value: string): string {
  return [...value.slice(0, 100)]
    .map((c) => (/[\u0000-\u001f\u007f|\ufffe\uffff\ud800-\udfff]/u.test(c) ? `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>` : c))
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
