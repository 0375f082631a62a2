import { AppError } from '../platform/errors.js';
import { buyerRfcProof } from './buyer-rfc-proof.js';

/**
 * Who may receive an invoice again ("send to my e-mail"). The ticket alone (the QR link) reaches only the
 * address given at confirmation; a new address also needs the buyer's RFC, which the ticket does not
 * carry (never a generic RFC, which proves nobody): a thrown-away ticket must not turn into the buyer's tax data sent anywhere, nor the merchant's
 * mail into a relay. Pure: the route counts the attempt and queues the send.
 */
export function invoiceEmailRecipient(request: { email?: string; rfc?: string }, confirmed: { email: string; rfc: string }): { to: string; newAddress: boolean } {
  const asked = request.email?.trim();
  if (!asked || sameAddress(asked, confirmed.email)) return { to: confirmed.email, newAddress: false };
  if (!request.rfc) {
    throw new AppError(403, 'buyer_rfc_required', "Sending the invoice to an address other than the one given at confirmation needs the buyer's RFC.", {
      details: [{ field: 'rfc', code: 'required', message: "The buyer's RFC, as on the invoice." }],
    });
  }
  const proof = buyerRfcProof(request.rfc, confirmed.rfc);
  if (proof === 'generic') {
    throw new AppError(403, 'buyer_rfc_generic', 'This invoice is to a generic RFC, which proves nobody: it can go only to the address given at confirmation.', {
      details: [{ field: 'rfc', code: 'generic', message: 'A generic RFC (XAXX010101000, XEXX010101000) is no proof.' }],
    });
  }
  if (proof === 'mismatch') {
    throw new AppError(403, 'buyer_rfc_mismatch', "That RFC is not the invoice's buyer; the invoice can still go to the address given at confirmation.", {
      details: [{ field: 'rfc', code: 'mismatch', message: 'Not the RFC on the invoice.' }],
    });
  }
  return { to: asked, newAddress: true };
}

/** Addresses compare without case (their domains have none; mailbox case is ignored by every real provider). */
function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.trim().toLowerCase();
}

/** An address as shown to whoever holds the ticket: enough to recognize it, not to harvest it (`j•••@example.com`). */
export function maskedAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at <= 0) return '•••';
  return `${address[0]}•••${address.slice(at)}`;
}
