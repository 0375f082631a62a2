import type { Knex } from 'knex';

/**
 * The operator's status page (GET /admin/status, shared/status/status-figures.ts) counts the last 24 hours of
 * QR and stamp transitions by their timestamps: one index per timestamp, so each count reads a day of rows,
 * not the table. The ones set later in a QR's or invoice's life are partial (most rows never get them). Built
 * CONCURRENTLY, outside a transaction, so a deploy does not block the writes to these tables while it builds.
 */
export const config = { transaction: false };

const INDEXES: [name: string, definition: string][] = [
  ['qr_transactions_created_at_idx', 'qr_transactions (created_at)'],
  ['qr_transactions_scanned_at_idx', 'qr_transactions (scanned_at) WHERE scanned_at IS NOT NULL'],
  ['qr_transactions_expired_at_idx', 'qr_transactions (expired_at) WHERE expired_at IS NOT NULL'],
  ['invoices_stamped_at_idx', 'invoices (stamped_at) WHERE stamped_at IS NOT NULL'],
  // A refused invoice is not written again: its updated_at is when it was refused.
  ['invoices_refused_at_idx', "invoices (updated_at) WHERE status = 'REFUSED'"],
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
