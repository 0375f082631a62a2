import { runPrepared, type Db, type PreparedStatement, type Trx } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { issueSecret, lookupPrefix, secretMatches } from '../platform/crypto/secret-token.js';

const LABEL = 'at';

/** Issues a bearer access token for an account; the secret is returned once and stored as a hash. */
export async function createAccessToken(trx: Db | Trx, accountId: string, ttlSeconds: number, now: Date = new Date()): Promise<{ token: string; expiresAt: Date }> {
  const issued = issueSecret(LABEL);
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  await trx('access_tokens').insert({ id: newId('accessToken'), account_id: accountId, prefix: issued.prefix, token_hash: issued.hash, expires_at: expiresAt });
  return { token: issued.secret, expiresAt };
}

const FIND_TOKEN: PreparedStatement = {
  name: 'access_token_find_v1',
  text: 'SELECT account_id, token_hash, expires_at FROM access_tokens WHERE prefix = $1 AND revoked_at IS NULL',
};

/** The account a presented bearer token speaks for; undefined when unknown, revoked or expired. */
export async function findTokenAccount(db: Db, presented: string, now: Date = new Date()): Promise<{ accountId: string } | undefined> {
  const prefix = lookupPrefix(presented, LABEL);
  if (!prefix) return undefined;
  const [row] = await runPrepared<{ account_id: string; token_hash: Buffer; expires_at: Date }>(db, FIND_TOKEN, [prefix]);
  if (!row || row.expires_at.getTime() <= now.getTime() || !secretMatches(presented, row.token_hash)) return undefined;
  return { accountId: row.account_id };
}

/** Revokes one token (by its secret) or every live token of an account; returns how many were revoked. */
export async function revokeAccessTokens(db: Db, which: { token: string } | { accountId: string }, now: Date = new Date()): Promise<number> {
  if ('accountId' in which) {
    return db('access_tokens').where({ account_id: which.accountId }).whereNull('revoked_at').update({ revoked_at: now });
  }
  const prefix = lookupPrefix(which.token, LABEL);
  if (!prefix) return 0;
  const row = (await db('access_tokens').where({ prefix }).whereNull('revoked_at').first('id', 'token_hash')) as { id: string; token_hash: Buffer } | undefined;
  if (!row || !secretMatches(which.token, row.token_hash)) return 0;
  return db('access_tokens').where({ id: row.id }).update({ revoked_at: now });
}
