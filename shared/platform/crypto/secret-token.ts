import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * High-entropy secrets (API keys, access tokens, client secrets): shown once, stored as SHA-256.
 * The first characters are a non-secret lookup prefix, so verification reads one row by prefix and
 * compares hashes in constant time. A slow KDF is unnecessary: 192 random bits cannot be guessed offline.
 */
export interface IssuedSecret {
  secret: string;
  prefix: string;
  hash: Buffer;
}

const PREFIX_RANDOM_CHARS = 10;

export function issueSecret(label: string): IssuedSecret {
  const secret = `${label}_${randomBytes(24).toString('base64url')}`;
  return { secret, prefix: secret.slice(0, label.length + 1 + PREFIX_RANDOM_CHARS), hash: hashSecret(secret) };
}

/** The prefix under which a presented secret was stored, or undefined when it cannot be one of ours. */
export function lookupPrefix(presented: string, label: string): string | undefined {
  if (!presented.startsWith(`${label}_`) || presented.length < label.length + 1 + 32) return undefined;
  return presented.slice(0, label.length + 1 + PREFIX_RANDOM_CHARS);
}

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Constant-time comparison; lengths are equal by construction (both SHA-256), checked anyway. */
export function secretMatches(presented: string, storedHash: Buffer): boolean {
  const candidate = hashSecret(presented);
  return candidate.length === storedHash.length && timingSafeEqual(candidate, storedHash);
}
