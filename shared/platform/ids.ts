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
