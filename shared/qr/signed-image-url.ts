import { createHmac } from 'node:crypto';
import { hmacKey } from '../platform/crypto/hmac-key.js';
import { verifySignedExpiryLink, type SignedLinkCheck } from '../platform/crypto/signed-expiry-link.js';

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

export type ImageUrlCheck = SignedLinkCheck;

export function verifyImageUrl(qrId: string, exp: unknown, sig: unknown, key: string, now: Date = new Date()): ImageUrlCheck {
  return verifySignedExpiryLink(exp, sig, (seconds) => signature(qrId, seconds, key).toString('base64url'), now);
}
