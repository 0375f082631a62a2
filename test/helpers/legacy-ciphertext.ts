import { createCipheriv, randomBytes } from 'node:crypto';

/**
 * What rows written before key ids hold: format 1 (`1 | iv | tag | ct`, no associated data) or, with
 * `boundTo`, format 2 (same layout, GCM associated data). The service no longer writes either; tests make
 * them to check they are still read and that `reencrypt` rewrites them.
 */
export function legacyCiphertext(plain: Buffer, key: Buffer, boundTo?: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  if (boundTo !== undefined) cipher.setAAD(Buffer.from(boundTo, 'utf8'));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([Buffer.from([boundTo === undefined ? 1 : 2]), iv, cipher.getAuthTag(), body]);
}
