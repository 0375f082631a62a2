import type { Db } from '../platform/db.js';
import { issueSecret, secretMatches } from '../platform/crypto/secret-token.js';

/** The account whose client credentials these are, or undefined (unknown id and wrong secret look the same). */
export async function findAccountByClientCredentials(db: Db, clientId: string, clientSecret: string): Promise<{ accountId: string } | undefined> {
  const row = (await db('accounts').where({ client_id: clientId }).first('id', 'client_secret_hash')) as { id: string; client_secret_hash: Buffer } | undefined;
  if (!row || !secretMatches(clientSecret, row.client_secret_hash)) return undefined;
  return { accountId: row.id };
}

export async function findAccountByName(db: Db, name: string): Promise<{ accountId: string } | undefined> {
  const row = (await db('accounts').where({ name }).first('id')) as { id: string } | undefined;
  return row ? { accountId: row.id } : undefined;
}

/** A new client secret for the account (shown once); the previous one stops working at once. Access tokens already issued live on. */
export async function rotateClientSecret(db: Db, accountId: string): Promise<{ clientId: string; clientSecret: string }> {
  const secret = issueSecret('cs');
  const [row] = (await db('accounts').where({ id: accountId }).update({ client_secret_hash: secret.hash }, ['client_id'])) as { client_id: string }[];
  return { clientId: row!.client_id, clientSecret: secret.secret };
}
