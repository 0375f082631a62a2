import type { Knex } from 'knex';

/**
 * One QR per sale (issue #39): a sale_id of a merchant (and mode) has at most one QR that is open (PENDING,
 * SCANNED) or INVOICED, so a POS that lost its idempotency key in a crash and posts the sale again gets 409
 * with the QR it already has, never a second QR a buyer could invoice or a global invoice report again.
 * A cancelled or expired QR does not hold its sale_id (docs/api.md). Built CONCURRENTLY, outside a transaction,
 * as the books' indexes; a database that already holds two such QRs of one sale refuses the migration with
 * their sale_ids (an operator cancels one of each pair, then migrates).
 */
export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  const twice = await knex.raw<{ rows: { merchant_id: string; mode: string; sale_id: string; qrs: string }[] }>(
    `SELECT merchant_id, mode, sale_id, string_agg(id, ', ' ORDER BY created_at) AS qrs FROM qr_transactions
     WHERE status IN ('PENDING','SCANNED','INVOICED') GROUP BY 1, 2, 3 HAVING count(*) > 1 ORDER BY 1, 2, 3 LIMIT 20`,
  );
  if (twice.rows.length > 0) {
    const listed = twice.rows.map((r) => `${r.merchant_id}/${r.mode} sale ${JSON.stringify(r.sale_id)}: ${r.qrs}`).join('; ');
    throw new Error(`one QR per sale: these sales have more than one open or invoiced QR (cancel all but one of each, then migrate again): ${listed}`);
  }
  const invalid = await knex.raw<{ rowCount: number }>('SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ? AND NOT i.indisvalid', [
    'qr_transactions_one_per_sale',
  ]);
  if (invalid.rowCount > 0) await knex.raw(`DROP INDEX CONCURRENTLY qr_transactions_one_per_sale`);
  await knex.raw(
    `CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS qr_transactions_one_per_sale ON qr_transactions (merchant_id, mode, sale_id) WHERE status IN ('PENDING','SCANNED','INVOICED')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS qr_transactions_one_per_sale`);
}
