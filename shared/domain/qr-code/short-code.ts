import { randomInt } from 'node:crypto';

/**
 * The code printed on a ticket for when its QR does not scan: 10 symbols of an alphabet without
 * look-alikes (no 0/O, 1/I/L), from the CSPRNG: 31^10 ≈ 2^49.5 codes, so guessing a live one is hopeless
 * at the lookup rate limit. Stored bare (`7KQ4MXR2PA`), shown and printed as `7KQ4M-XR2PA`. A ticket the point
 * of sale printed offline has a 12-symbol code of its own (shared/offline/offline-ticket.ts), shown as
 * `7KQ4-MXR2-PAB3`: the two never collide.
 */
export const SHORT_CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
export const SHORT_CODE_LENGTH = 10;
const VALID = new RegExp(`^(?:[${SHORT_CODE_ALPHABET}]{${SHORT_CODE_LENGTH}}|[${SHORT_CODE_ALPHABET}]{12})$`);

export function newShortCode(): string {
  let code = '';
  for (let i = 0; i < SHORT_CODE_LENGTH; i += 1) code += SHORT_CODE_ALPHABET[randomInt(SHORT_CODE_ALPHABET.length)];
  return code;
}

export function formatShortCode(code: string): string {
  return code.length === 12 ? `${code.slice(0, 4)}-${code.slice(4, 8)}-${code.slice(8)}` : `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** What the buyer typed, in any case, with spaces or dashes; undefined when it cannot be a code. */
export function parseShortCode(typed: unknown): string | undefined {
  if (typeof typed !== 'string' || typed.length > 40) return undefined;
  const bare = typed.toUpperCase().replace(/[\s-]+/g, '');
  return VALID.test(bare) ? bare : undefined;
}
