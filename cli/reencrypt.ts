import type { Db } from '../shared/platform/db.js';
import { boundTo, decrypt, encrypt, isCurrent, type Keyring } from '../shared/platform/crypto/encrypt-at-rest.js';

/** One column of secrets: its table, its key column, and the associated data of each row. */
interface SecretColumn {
  name: string;
  table: string;
  id: string;
  column: string;
  aad: (rowId: string) => string;
}

const COLUMNS: SecretColumn[] = [
  { name: 'csd keys', table: 'merchant_csds', id: 'merchant_id', column: 'private_key_encrypted', aad: boundTo.csdKey },
  { name: 'csd passwords', table: 'merchant_csds', id: 'merchant_id', column: 'password_encrypted', aad: boundTo.csdPassword },
  { name: 'webhook secrets', table: 'webhook_endpoints', id: 'id', column: 'secret_encrypted', aad: boundTo.webhookSecret },
  { name: 'offline keys', table: 'offline_keys', id: 'id', column: 'secret_encrypted', aad: boundTo.offlineKey },
];

const BATCH = 200;

export interface ReencryptCount {
  reencrypted: number;
  alreadyCurrent: number;
  failed: { id: string; error: string }[];
}

/**
 * `npm run cli -- reencrypt`: the second half of an ENCRYPTION_KEY rotation. Every stored secret not sealed
 * by the current key in the current format is decrypted (with whichever configured key sealed it) and sealed
 * again, a batch of rows per transaction, each row locked (`FOR UPDATE`) so a CSD renewed meanwhile is not
 * overwritten with its old value. Idempotent: a second run finds nothing to do. A row that does not decrypt
 * (its key id not configured, or corrupted) is reported and left as it is; the others go on.
 */
export async function reencryptSecrets(db: Db, keyring: Keyring): Promise<Record<string, ReencryptCount>> {
  const counts: Record<string, ReencryptCount> = {};
  for (const c of COLUMNS) {
    const count: ReencryptCount = { reencrypted: 0, alreadyCurrent: 0, failed: [] };
    counts[c.name] = count;
    let lastId = '';
    for (;;) {
      const done = await db.transaction(async (trx) => {
        const rows = (await trx(c.table).where(c.id, '>', lastId).orderBy(c.id).limit(BATCH).forUpdate().select({ id: c.id, sealed: c.column })) as {
          id: string;
          sealed: Buffer;
        }[];
        for (const row of rows) {
          if (isCurrent(row.sealed, keyring)) {
            count.alreadyCurrent++;
            continue;
          }
          let plain: Buffer;
          try {
            plain = decrypt(row.sealed, keyring, c.aad(row.id));
          } catch (err) {
            count.failed.push({ id: row.id, error: err instanceof Error ? err.message : String(err) });
            continue;
          }
          // Outside the try: a database error aborts the transaction, so it must stop the run, not count as one row.
          await trx(c.table)
            .where(c.id, row.id)
            .update({ [c.column]: encrypt(plain, keyring, c.aad(row.id)) });
          count.reencrypted++;
        }
        if (rows.length > 0) lastId = rows[rows.length - 1]!.id;
        return rows.length < BATCH;
      });
      if (done) break;
    }
  }
  return counts;
}
