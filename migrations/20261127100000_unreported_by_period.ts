import type { Knex } from 'knex';

/**
 * The unclaimed-sales index leads with the period's end (issue #30, docs/data-growth.md): the global-invoice
 * check asks for every period closed before now (`global_period_end <= ?`, any merchant), which an index
 * leading with merchant_id can only answer by reading all of it — and it holds every open QR. At 3,000,000
 * rows the planner chose a parallel sequential scan (1.6 s). Leading with global_period_end, the check
 * reads the closed periods' rows only; a merchant's period (both columns equal) is found either way.
 */
const PREDICATE = `WHERE global_invoice_id IS NULL AND global_period_end IS NOT NULL AND status IN ('PENDING','SCANNED','EXPIRED')`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX qr_transactions_unreported_period_idx ON qr_transactions (global_period_end, merchant_id) ${PREDICATE}`);
  await knex.raw('DROP INDEX IF EXISTS qr_transactions_unreported_idx');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX qr_transactions_unreported_idx ON qr_transactions (merchant_id, global_period_end) ${PREDICATE}`);
  await knex.raw('DROP INDEX IF EXISTS qr_transactions_unreported_period_idx');
}
