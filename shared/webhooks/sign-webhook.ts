import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Signatures in the Standard Webhooks form (standardwebhooks.com): the secret is `whsec_` + Base64 of 32
 * random bytes; `webhook-signature` is `v1,` + Base64 of HMAC-SHA256(key, `${id}.${timestamp}.${body}`).
 * Receivers recompute it over the raw body, compare in constant time, and refuse old timestamps.
 */
const PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

export function webhookSignature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The headers of one delivery attempt. */
export function webhookHeaders(secret: string, id: string, body: string, now = new Date()): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': webhookSignature(secret, id, timestamp, body),
  };
}

/** The receiver's check (documented in docs/invoice-lifecycle.md, "Webhooks"; used by the tests' receiver). */
export function verifyWebhook(secret: string, headers: { id: string; timestamp: string; signature: string }, body: string, now = new Date(), toleranceSeconds = 300): boolean {
  const timestamp = Number(headers.timestamp);
  if (!Number.isInteger(timestamp) || Math.abs(now.getTime() / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(webhookSignature(secret, headers.id, timestamp, body));
  // The header may carry several space-separated signatures (during a secret rotation).
  return headers.signature.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
