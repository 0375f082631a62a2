import { createHmac, timingSafeEqual } from 'node:crypto';
import { hmacKey } from '../platform/crypto/hmac-key.js';
import { timedKey } from '../platform/ids.js';

/**
 * The deep link printed in the QR: `{base}/q?v=1&t=<token>&m=<mac>`.
 * `t` is 128 bits, the sale's creation millisecond then 80 random bits (timedKey: it names the month partition
 * the sale is in, nothing about the merchant or the amount); `m` is
 * HMAC-SHA256(key, "v1." + t) truncated to 128 bits. Short values keep the QR symbol small.
 */
export const QR_LINK_VERSION = '1';
const MAC_BYTES = 16;

export interface QrLinkParams {
  v: string;
  t: string;
  m: string;
}

/** `at`: the sale's created_at, which the token carries. */
export function newQrToken(at: Date = new Date()): string {
  return timedKey(at);
}

function mac(token: string, version: string, key: string): Buffer {
  return createHmac('sha256', hmacKey(key)).update(`v${version}.${token}`).digest().subarray(0, MAC_BYTES);
}

export function signQrToken(token: string, key: string): QrLinkParams {
  return { v: QR_LINK_VERSION, t: token, m: mac(token, QR_LINK_VERSION, key).toString('base64url') };
}

export function qrContent(publicBaseUrl: string, params: QrLinkParams): string {
  return `${publicBaseUrl}/q?v=${params.v}&t=${params.t}&m=${params.m}`;
}

export type QrLinkCheck = { ok: true; token: string } | { ok: false; reason: 'unsupported_version' | 'malformed' | 'bad_signature' };

/**
 * Verifies the three parameters in constant time; never throws on hostile input. `keys`: the current key
 * and those it replaced (QR_HMAC_PREVIOUS_KEYS), so the links already printed keep working after a
 * rotation; `v` stays the format version (the contract's `1`), not a key number.
 */
export function verifyQrLink(params: Partial<Record<keyof QrLinkParams, unknown>>, keys: string | readonly string[]): QrLinkCheck {
  const { v, t, m } = params;
  if (v !== QR_LINK_VERSION) return { ok: false, reason: 'unsupported_version' };
  if (typeof t !== 'string' || typeof m !== 'string' || !/^[A-Za-z0-9_-]{22}$/.test(t) || !/^[A-Za-z0-9_-]{22}$/.test(m)) {
    return { ok: false, reason: 'malformed' };
  }
  // The text, not its decoded bytes: the last Base64 character has bits decoding ignores, and only the
  // canonical spelling of the MAC may open the link.
  const presented = Buffer.from(m, 'ascii');
  for (const key of typeof keys === 'string' ? [keys] : keys) {
    const expected = Buffer.from(mac(t, v, key).toString('base64url'), 'ascii');
    if (presented.length === expected.length && timingSafeEqual(presented, expected)) return { ok: true, token: t };
  }
  return { ok: false, reason: 'bad_signature' };
}
