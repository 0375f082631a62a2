import type { Knex } from 'knex';

/**
 * The merchant's books (issue #32): GET /v1/qrs and GET /v1/qrs/invoices page newest first by (created_at, id)
 * within a merchant (shared/repositories/books.ts), so each page is one backward range of these indexes,
 * whatever the merchant's row count; the receptor's RFC, asked for alone, gets its own range. The tickets of
 * a global invoice (the sales an export row covers) are read by global_invoice_id. Built CONCURRENTLY, outside
 * a transaction, so a deploy does not block writes while they build (as 20261126090000_status_page_indexes).
 */
export const config = { transaction: false };

const INDEXES: [name: string, definition: string][] = [
  ['qr_transactions_merchant_created_idx', 'qr_transactions (merchant_id, created_at, id)'],
  ['invoices_merchant_created_idx', 'invoices (merchant_id, created_at, id)'],
  ['invoices_merchant_receptor_idx', "invoices (merchant_id, (customer->>'rfc'), created_at, id)"],
  ['qr_transactions_global_invoice_idx', 'qr_transactions (global_invoice_id) WHERE global_invoice_id IS NOT NULL'],
];

export async function up(knex: Knex): Promise<void> {
  for (const [name, definition] of INDEXES) {
    // A concurrent build that was interrupted leaves an invalid index behind: built again from scratch.
    const invalid = await knex.raw<{ rowCount: number }>('SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ? AND NOT i.indisvalid', [name]);
    if (invalid.rowCount > 0) await knex.raw(`DROP INDEX CONCURRENTLY ${name}`);
    await knex.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON ${definition}`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [name] of INDEXES) await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
}
