import { randomBytes } from 'node:crypto';
import { OFFLINE_KEY_ID } from './offline-ticket.js';

/**
 * A store's offline key as the point of sale keeps it: one string, `afok_<key id>.<secret>`, the id (10
 * base64url characters, printed in every ticket) and 256 random bits (43 base64url characters, never
 * printed). Shown once; the service keeps the secret encrypted, since it must sign with it to check.
 */
const PREFIX = 'afok_';
const CREDENTIAL = /^afok_([A-Za-z0-9_-]{10})\.([A-Za-z0-9_-]{43})$/;

export interface OfflineKeyMaterial {
  keyId: string;
  secret: Buffer;
}

export function newOfflineKey(): OfflineKeyMaterial {
  return { keyId: randomBytes(8).toString('base64url').slice(0, 10), secret: randomBytes(32) };
}

export function offlineCredential(key: OfflineKeyMaterial): string {
  return `${PREFIX}${key.keyId}.${key.secret.toString('base64url')}`;
}

/** The id and secret of a credential; undefined when the text is not one. */
export function parseOfflineCredential(text: string): OfflineKeyMaterial | undefined {
  const m = CREDENTIAL.exec(text);
  if (!m || !OFFLINE_KEY_ID.test(m[1]!)) return undefined;
  return { keyId: m[1]!, secret: Buffer.from(m[2]!, 'base64url') };
}
