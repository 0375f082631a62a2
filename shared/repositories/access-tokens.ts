import type { Db, Trx } from '../db.js';
import { newId } from '../ids.js';
import { issueSecret } from '../crypto/secret-token.js';

/** Issues a bearer access token for an account; the secret is returned once and stored as a hash. */
export async function createAccessToken(trx: Db | Trx, accountId: string, ttlSeconds: number, now: Date = new Date()): Promise<{ token: string; expiresAt: Date }> {
  const issued = issueSecret('at');
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  await trx('access_tokens').insert({ id: newId('accessToken'), account_id: accountId, prefix: issued.prefix, token_hash: issued.hash, expires_at: expiresAt });
  return { token: issued.secret, expiresAt };
}
