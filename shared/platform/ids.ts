import { randomBytes } from 'node:crypto';

/** Identifier prefixes exactly as the spec shapes them. */
export const ID_PREFIX = {
  account: 'acc_',
  group: 'grp_',
  issuer: 'inv_data_',
  merchant: 'mer_',
  transaction: 'tra_',
  apiKey: 'key_',
  accessToken: 'tok_',
  product: 'prd_',
  invoice: 'cfd_',
  cancellation: 'can_',
  webhookEndpoint: 'whe_',
  webhookEvent: 'evt_',
  webhookDelivery: 'whd_',
  invoiceExport: 'exp_',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/** Prefix + 128 random bits as Base64URL: opaque, unguessable, URL-safe. */
export function newId(kind: IdKind): string {
  return ID_PREFIX[kind] + randomBytes(16).toString('base64url');
}

/**
 * 48 bits of `at`'s millisecond, then 80 random bits, as Base64URL: 22 characters like newId's, as opaque to
 * a client. The QR tables are partitioned by month of created_at, and a sale's id and token carry its
 * created_at this way (issue #41, docs/data-growth.md): a lookup computes the partition from the key, and two
 * equal keys fall in one partition, where its unique index refuses the second. 80 random bits are what a
 * guesser of one millisecond's keys faces.
 */
export function timedKey(at: Date): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(at.getTime(), 0, 6);
  return bytes.toString('base64url');
}

/**
 * The instant a timedKey carries (its first 8 characters: 48 bits of milliseconds), as SQL's qr_key_instant
 * reads it; undefined when they are not Base64URL. A key made before keys carried one decodes to some
 * meaningless instant: callers also look in the legacy partition.
 */
export function timedKeyInstant(key: string): Date | undefined {
  if (!/^[A-Za-z0-9_-]{8}/.test(key)) return undefined;
  return new Date(Buffer.from(key.slice(0, 8), 'base64url').readUIntBE(0, 6));
}

/** A QR transaction's id; `at` is the row's created_at (to the millisecond, as a Date holds it). */
export function newQrId(at: Date): string {
  return ID_PREFIX.transaction + timedKey(at);
}
