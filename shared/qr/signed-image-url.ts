import { createHmac, timingSafeEqual } from 'node:crypto';
import { hmacKey } from '../platform/crypto/hmac-key.js';

/**
 * qr_url: a public, credential-free URL to the QR PNG, signed like a presigned URL.
 * The signature covers the transaction id and the expiry (unix seconds), so neither can be changed.
 */
function signature(qrId: string, exp: number, key: string): Buffer {
  return createHmac('sha256', hmacKey(key)).update(`qr-image.${qrId}.${exp}`).digest().subarray(0, 16);
}

export function signedImageUrl(publicBaseUrl: string, qrId: string, expiresAt: Date, key: string): string {
  const exp = Math.floor(expiresAt.getTime() / 1000);
  return `${publicBaseUrl}/v1/public/qrs/images/${qrId}.png?exp=${exp}&sig=${signature(qrId, exp, key).toString('base64url')}`;
}

export type ImageUrlCheck = { ok: true } | { ok: false; reason: 'bad_signature' | 'expired' };

export function verifyImageUrl(qrId: string, exp: unknown, sig: unknown, key: string, now: Date = new Date()): ImageUrlCheck {
  if (typeof exp !== 'string' || !/^[0-9]{1,12}$/.test(exp) || typeof sig !== 'string' || !/^[A-Za-z0-9_-]{22}$/.test(sig)) {
    return { ok: false, reason: 'bad_signature' };
  }
  // Compared as text, so a non-canonical Base64 spelling of the right bytes is refused too.
  const expected = Buffer.from(signature(qrId, Number(exp), key).toString('base64url'), 'ascii');
  const presented = Buffer.from(sig, 'ascii');
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return { ok: false, reason: 'bad_signature' };
  if (Number(exp) * 1000 < now.getTime()) return { ok: false, reason: 'expired' };
  return { ok: true };
}
