import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for secrets stored in PostgreSQL (CSD private keys and passwords, webhook secrets).
 * Layouts, told apart by the first byte:
 * - 1: `1 | iv(12) | tag(16) | ciphertext`, no associated data (rows written before issue #8; still read).
 * - 2: same layout, bound to its row by GCM associated data (e.g. `csd-key:<merchant id>`), so a ciphertext
 *   copied into another merchant's row, or from the key column into the password column, fails to decrypt.
 * - 3 (written now): `3 | key id | iv(12) | tag(16) | ciphertext`, bound like 2. The key id names which
 *   ENCRYPTION_KEY sealed it, so the key can be rotated: new values under the new id, old ones still read
 *   with the previous keys until `npm run cli -- reencrypt` has rewritten them. Versions 1 and 2 were
 *   written under what is key id 1.
 */
const V1_NO_AAD = 1;
const V2_BOUND = 2;
const V3_KEY_ID = 3;
const LEGACY_KEY_ID = 1;

/** The current key (new values) and every key that may still be needed to read (by id, the current one too). */
export interface Keyring {
  currentId: number;
  keys: ReadonlyMap<number, Buffer>;
}

export function parseEncryptionKey(text: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new Error('encryption key must be 32 bytes');
  return key;
}

/** ENCRYPTION_KEY as key ENCRYPTION_KEY_ID, with ENCRYPTION_PREVIOUS_KEYS for reading. */
export function encryptionKeyring(config: { encryptionKey: string; encryptionKeyId: number; encryptionPreviousKeys: readonly { id: number; key: string }[] }): Keyring {
  const keys = new Map<number, Buffer>(config.encryptionPreviousKeys.map((k) => [k.id, parseEncryptionKey(k.key)]));
  keys.set(config.encryptionKeyId, parseEncryptionKey(config.encryptionKey));
  return { currentId: config.encryptionKeyId, keys };
}

/** Encrypts under the current key, bound to `boundTo` (format 3). */
export function encrypt(plain: Buffer, keyring: Keyring, boundTo: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(keyring, keyring.currentId), iv);
  cipher.setAAD(Buffer.from(boundTo, 'utf8'));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([Buffer.from([V3_KEY_ID, keyring.currentId]), iv, cipher.getAuthTag(), body]);
}

/** Which key sealed a value: the byte after the format, or key 1 for the formats before key ids. */
export function sealingKeyId(sealed: Buffer): number {
  const version = sealed[0];
  if (version === V3_KEY_ID && sealed.length >= 30) return sealed[1]!;
  if ((version === V1_NO_AAD || version === V2_BOUND) && sealed.length >= 29) return LEGACY_KEY_ID;
  throw new Error('unknown encrypted payload format');
}

/** Is it sealed the way `encrypt` seals now (format 3, current key)? */
export function isCurrent(sealed: Buffer, keyring: Keyring): boolean {
  return sealed[0] === V3_KEY_ID && sealed[1] === keyring.currentId;
}

/**
 * Decrypts any format. Formats 2 and 3 need the `boundTo` they were written with; a format-1 payload (no
 * binding) is accepted so old rows keep working until they are rewritten.
 */
export function decrypt(sealed: Buffer, keyring: Keyring, boundTo?: string): Buffer {
  const key = keyOf(keyring, sealingKeyId(sealed));
  const start = sealed[0] === V3_KEY_ID ? 2 : 1;
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(start, start + 12));
  if (sealed[0] !== V1_NO_AAD) {
    if (boundTo === undefined) throw new Error('encrypted payload is bound to a row: associated data required');
    decipher.setAAD(Buffer.from(boundTo, 'utf8'));
  }
  decipher.setAuthTag(sealed.subarray(start + 12, start + 28));
  return Buffer.concat([decipher.update(sealed.subarray(start + 28)), decipher.final()]);
}

function keyOf(keyring: Keyring, id: number): Buffer {
  const key = keyring.keys.get(id);
  if (!key) throw new Error(`encryption key id ${id} is not configured (ENCRYPTION_KEY_ID, ENCRYPTION_PREVIOUS_KEYS)`);
  return key;
}

/** The associated data of each stored secret: its purpose and the id of the row that owns it. */
export const boundTo = {
  csdKey: (merchantId: string) => `csd-key:${merchantId}`,
  csdPassword: (merchantId: string) => `csd-password:${merchantId}`,
  webhookSecret: (endpointId: string) => `webhook-secret:${endpointId}`,
  offlineKey: (keyId: string) => `offline-key:${keyId}`,
} as const;
