import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for secrets stored in PostgreSQL (CSD private keys and passwords, webhook secrets).
 * Layout: version(1) | iv(12) | tag(16) | ciphertext.
 * - version 1: no associated data (rows written before issue #8; still read).
 * - version 2: bound to its row by GCM associated data (e.g. `csd-key:<merchant id>`), so a ciphertext
 *   copied into another merchant's row, or from the key column into the password column, fails to decrypt.
 */
const V1_NO_AAD = 1;
const V2_BOUND = 2;

export function parseEncryptionKey(text: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new Error('encryption key must be 32 bytes');
  return key;
}

/** Encrypts; with `boundTo` the result only decrypts with the same `boundTo` (version 2). */
export function encrypt(plain: Buffer, key: Buffer, boundTo?: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  if (boundTo !== undefined) cipher.setAAD(Buffer.from(boundTo, 'utf8'));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([Buffer.from([boundTo === undefined ? V1_NO_AAD : V2_BOUND]), iv, cipher.getAuthTag(), body]);
}

/**
 * Decrypts either version. A version-2 payload needs the `boundTo` it was written with; a version-1 payload
 * (no binding) is accepted so existing rows keep working until they are rewritten.
 */
export function decrypt(sealed: Buffer, key: Buffer, boundTo?: string): Buffer {
  const version = sealed[0];
  if ((version !== V1_NO_AAD && version !== V2_BOUND) || sealed.length < 29) throw new Error('unknown encrypted payload format');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(1, 13));
  if (version === V2_BOUND) {
    if (boundTo === undefined) throw new Error('encrypted payload is bound to a row: associated data required');
    decipher.setAAD(Buffer.from(boundTo, 'utf8'));
  }
  decipher.setAuthTag(sealed.subarray(13, 29));
  return Buffer.concat([decipher.update(sealed.subarray(29)), decipher.final()]);
}

/** The associated data of each stored secret: its purpose and the id of the row that owns it. */
export const boundTo = {
  csdKey: (merchantId: string) => `csd-key:${merchantId}`,
  csdPassword: (merchantId: string) => `csd-password:${merchantId}`,
  webhookSecret: (endpointId: string) => `webhook-secret:${endpointId}`,
} as const;
