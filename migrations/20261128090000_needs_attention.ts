import type { Knex } from 'knex';

/**
 * Nothing retried forever (issue #38): what has not succeeded after its attempts or its time is marked as
 * needing attention (shared/status/needs-attention.ts) until an operator retries it or gives it up.
 *
 * - invoices: a confirmation (or credit note, complement, global invoice) STAMPING past STAMP_GIVE_UP_MS is
 *   `stalled_at` (with its cause): still STAMPING (no CFDI yet, and one may still come), but no longer
 *   re-queued by the sweep. `stamp_retried_at`: an operator's retry, from which the bound counts again.
 * - invoices' e-mails: one neither sent nor refused a day after the stamp failed every attempt;
 *   `email_given_up_at` says an operator let it be.
 * - invoice_exports, webhook_deliveries: FAILED is final already; `given_up_at` says an operator let it be.
 * - issuers: `sync_attention_at`, a synchronization FAILED by the service's side (the CSF service did not
 *   answer through every attempt, or the job was lost), not by the owner's data.
 *
 * What was FAILED before this migration predates the rule: counted as given up, so the alarm does not fire
 * on history.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.timestamp('stalled_at', { useTz: true });
    t.text('stall_cause');
    t.timestamp('stamp_retried_at', { useTz: true });
    t.timestamp('email_given_up_at', { useTz: true });
  });
  await knex.raw(`CREATE INDEX invoices_stalled_idx ON invoices (stalled_at) WHERE status = 'STAMPING' AND stalled_at IS NOT NULL`);
  await knex.schema.alterTable('invoice_exports', (t) => t.timestamp('given_up_at', { useTz: true }));
  await knex.raw(`UPDATE invoice_exports SET given_up_at = coalesce(finished_at, created_at) WHERE status = 'FAILED'`);
  await knex.raw(`ALTER TABLE webhook_deliveries ADD COLUMN given_up_at timestamptz`);
  await knex.raw(`UPDATE webhook_deliveries SET given_up_at = coalesce(last_attempt_at, created_at) WHERE status = 'FAILED'`);
  await knex.raw(`CREATE INDEX webhook_deliveries_attention_idx ON webhook_deliveries (last_attempt_at) WHERE status = 'FAILED' AND given_up_at IS NULL`);
  await knex.raw(`CREATE INDEX webhook_deliveries_retrying_idx ON webhook_deliveries (last_attempt_at) WHERE status = 'PENDING' AND attempts > 0`);
  await knex.schema.alterTable('issuers', (t) => t.timestamp('sync_attention_at', { useTz: true }));
  await knex.raw(`CREATE INDEX issuers_sync_attention_idx ON issuers (sync_attention_at) WHERE sync_attention_at IS NOT NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS issuers_sync_attention_idx');
  await knex.schema.alterTable('issuers', (t) => t.dropColumn('sync_attention_at'));
  await knex.raw('DROP INDEX IF EXISTS webhook_deliveries_retrying_idx');
  await knex.raw('DROP INDEX IF EXISTS webhook_deliveries_attention_idx');
  await knex.raw('ALTER TABLE webhook_deliveries DROP COLUMN given_up_at');
  await knex.schema.alterTable('invoice_exports', (t) => t.dropColumn('given_up_at'));
  await knex.raw('DROP INDEX IF EXISTS invoices_stalled_idx');
  await knex.schema.alterTable('invoices', (t) => {
    t.dropColumn('email_given_up_at');
    t.dropColumn('stamp_retried_at');
    t.dropColumn('stall_cause');
    t.dropColumn('stalled_at');
  });
}
