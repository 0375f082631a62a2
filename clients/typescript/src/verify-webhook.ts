import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A webhook receiver's check (Standard Webhooks): `webhook-signature` holds `v1,<base64 HMAC-SHA256>` of
 * `${webhook-id}.${webhook-timestamp}.${raw body}` under the endpoint's secret (`whsec_…`), and the
 * timestamp is recent. Pass the raw body as received, before any JSON parsing.
 */
export function verifyWebhook(secret: string, headers: Record<string, string | string[] | undefined>, rawBody: string, now = new Date(), toleranceSeconds = 300): boolean {
  const header = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const [id, timestamp, signatures] = [header('webhook-id'), header('webhook-timestamp'), header('webhook-signature')];
  if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp) || Math.abs(now.getTime() / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const expected = Buffer.from(`v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest('base64')}`);
  return signatures.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
