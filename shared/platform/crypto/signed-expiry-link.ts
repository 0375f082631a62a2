import { timingSafeEqual } from 'node:crypto';

/**
 * The check every credential-free signed link shares (qr_url, xml_url / pdf_url, an export's download): `exp`
 * in unix seconds written canonically (no sign, no leading zero: one spelling per moment, so a link cannot be
 * re-spelt into another that verifies), `sig` 16 bytes of base64url, compared as text in constant time (a
 * non-canonical Base64 spelling of the right bytes is refused too), then the expiry.
 */
export type SignedLinkCheck = { ok: true } | { ok: false; reason: 'bad_signature' | 'expired' };

const CANONICAL_SECONDS = /^(?:0|[1-9][0-9]{0,11})$/;
const SIGNATURE = /^[A-Za-z0-9_-]{22}$/;

/** `signatureOf(exp)`: the base64url signature the link must carry for that expiry. */
export function verifySignedExpiryLink(exp: unknown, sig: unknown, signatureOf: (exp: number) => string, now: Date): SignedLinkCheck {
  if (typeof exp !== 'string' || !CANONICAL_SECONDS.test(exp) || typeof sig !== 'string' || !SIGNATURE.test(sig)) return { ok: false, reason: 'bad_signature' };
  const seconds = Number(exp);
  const expected = Buffer.from(signatureOf(seconds), 'ascii');
  const presented = Buffer.from(sig, 'ascii');
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return { ok: false, reason: 'bad_signature' };
  if (seconds * 1000 < now.getTime()) return { ok: false, reason: 'expired' };
  return { ok: true };
}
