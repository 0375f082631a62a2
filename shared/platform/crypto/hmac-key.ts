import { createSecretKey, type KeyObject } from 'node:crypto';

const keys = new Map<string, KeyObject>();

/**
 * A configured secret (a few per process: QR_HMAC_KEY and its predecessors, URL_SIGNING_KEY) as a KeyObject,
 * made once: createHmac given the string imports the key again on every call, ~30 % of a short MAC's cost on
 * GET /v1/qrs/{qrId}'s two MACs. Same bytes as the string (UTF-8), so the same MACs.
 */
export function hmacKey(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) keys.set(secret, (key = createSecretKey(secret, 'utf8')));
  return key;
}
