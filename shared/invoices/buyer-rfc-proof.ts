/**
 * Whether a typed RFC proves that whoever holds a ticket is the invoice's buyer. The ticket alone may be
 * thrown away and picked up; the buyer's RFC is not on it. A generic RFC (público en general, foreigner)
 * is on every such invoice and in every manual, so it never proves anything. Pure.
 */
export const GENERIC_RFCS: ReadonlySet<string> = new Set(['XAXX010101000', 'XEXX010101000']);

export type RfcProof = 'proven' | 'mismatch' | 'generic';

export function normalRfc(rfc: string): string {
  return rfc.replace(/\s+/g, '').toUpperCase();
}

export function buyerRfcProof(typed: string, invoiceRfc: string): RfcProof {
  const rfc = normalRfc(invoiceRfc);
  if (GENERIC_RFCS.has(rfc)) return 'generic';
  return normalRfc(typed) === rfc ? 'proven' : 'mismatch';
}
