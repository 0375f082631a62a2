import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * The operator password of the ops pages (`ADMIN_PASSWORD_HASH`): scrypt, stored as
 * `scrypt.<N>.<r>.<p>.<salt>.<key>` (base64url). Dots and base64url need no quoting in a shell,
 * a Procfile or a compose file, where `$` (as in PHC strings) would be interpolated.
 */
export interface AdminPasswordHash {
  cost: number;
  blockSize: number;
  parallelization: number;
  salt: Buffer;
  key: Buffer;
}

const DEFAULTS = { cost: 16_384, blockSize: 8, parallelization: 1 };
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Cheaper hashes fall to brute force; dearer ones let every failed login cost the API seconds. */
const COST_RANGE = { min: 16_384, max: 1_048_576 };
export const MIN_ADMIN_PASSWORD_LENGTH = 12;

function derive(password: string, salt: Buffer, keyBytes: number, params: Pick<AdminPasswordHash, 'cost' | 'blockSize' | 'parallelization'>): Promise<Buffer> {
  const options: ScryptOptions = { N: params.cost, r: params.blockSize, p: params.parallelization, maxmem: 256 * params.cost * params.blockSize };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyBytes, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashAdminPassword(password: string): Promise<string> {
  if (password.length < MIN_ADMIN_PASSWORD_LENGTH) throw new RangeError(`the password must have at least ${MIN_ADMIN_PASSWORD_LENGTH} characters`);
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, KEY_BYTES, DEFAULTS);
  return ['scrypt', DEFAULTS.cost, DEFAULTS.blockSize, DEFAULTS.parallelization, salt.toString('base64url'), key.toString('base64url')].join('.');
}

/** Throws (with a message fit for a boot error) when the text is not a hash made by hashAdminPassword. */
export function parseAdminPasswordHash(text: string): AdminPasswordHash {
  const match = /^scrypt\.(\d+)\.(\d+)\.(\d+)\.([A-Za-z0-9_-]{16,})\.([A-Za-z0-9_-]{32,})$/.exec(text);
  if (!match) throw new Error('ADMIN_PASSWORD_HASH must be the output of `npm run cli -- admin-password`');
  const [cost, blockSize, parallelization] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const powerOfTwo = (cost & (cost - 1)) === 0;
  if (!powerOfTwo || cost < COST_RANGE.min || cost > COST_RANGE.max || blockSize < 1 || blockSize > 32 || parallelization < 1 || parallelization > 16) {
    throw new Error('ADMIN_PASSWORD_HASH has scrypt parameters out of range; make a new one with `npm run cli -- admin-password`');
  }
  return { cost, blockSize, parallelization, salt: Buffer.from(match[4]!, 'base64url'), key: Buffer.from(match[5]!, 'base64url') };
}

export async function verifyAdminPassword(password: string, hash: AdminPasswordHash): Promise<boolean> {
  const candidate = await derive(password, hash.salt, hash.key.length, hash);
  return timingSafeEqual(candidate, hash.key); // same length by construction: derived at the stored key's length
}
