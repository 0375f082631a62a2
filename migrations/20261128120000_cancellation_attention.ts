import type { Knex } from 'knex';

/**
 * Issue #38: no cancellation is polled forever. NOT_FOUND_AT_SAT (SAT's status service answers N - 602: it has not
 * learned of the CFDI yet) is polled for a grace; NEEDS_ATTENTION (with its cause) is where a request goes when
 * that grace, or the wait for the receptor, runs out, or SAT cannot read the expression: no longer polled, it waits
 * for an operator. `status_since` is when the request entered its status (the bounds count from it; `updated_at`
 * moves on every poll). Both new states are open: still the invoice's one current request.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoice_cancellations', (t) => {
    t.timestamp('status_since', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('attention_cause');
  });
  await knex.raw('UPDATE invoice_cancellations SET status_since = COALESCE(resolved_at, requested_at)');
  await knex.raw('ALTER TABLE invoice_cancellations DROP CONSTRAINT invoice_cancellations_status_check');
  await knex.raw(`ALTER TABLE invoice_cancellations ADD CONSTRAINT invoice_cancellations_status_check
    CHECK (status IN ('REQUESTED','PENDING','NOT_FOUND_AT_SAT','NEEDS_ATTENTION','CANCELLED','REJECTED','FAILED'))`);
  await knex.raw(`ALTER TABLE invoice_cancellations ADD CONSTRAINT invoice_cancellations_attention_check
    CHECK ((status = 'NEEDS_ATTENTION') = (attention_cause IS NOT NULL)
      AND (attention_cause IS NULL OR attention_cause IN ('not_found_at_sat','sat_rejected_expression','pending_too_long')))`);
  await knex.raw('DROP INDEX invoice_cancellations_one_open');
  await knex.raw(`CREATE UNIQUE INDEX invoice_cancellations_one_open ON invoice_cancellations (invoice_id)
    WHERE status IN ('REQUESTED','PENDING','NOT_FOUND_AT_SAT','NEEDS_ATTENTION')`);
  await knex.raw('DROP INDEX invoice_cancellations_open_idx');
  await knex.raw(`CREATE INDEX invoice_cancellations_open_idx ON invoice_cancellations (updated_at) WHERE status IN ('REQUESTED','PENDING','NOT_FOUND_AT_SAT')`);
  await knex.raw(`CREATE INDEX invoice_cancellations_attention_idx ON invoice_cancellations (status_since) WHERE status = 'NEEDS_ATTENTION'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX invoice_cancellations_attention_idx');
  // Back to what the old poll knew: waiting requests are PENDING.
  await knex.raw(`UPDATE invoice_cancellations SET status = 'PENDING' WHERE status IN ('NOT_FOUND_AT_SAT','NEEDS_ATTENTION')`);
  await knex.raw('ALTER TABLE invoice_cancellations DROP CONSTRAINT invoice_cancellations_attention_check');
  await knex.raw('ALTER TABLE invoice_cancellations DROP CONSTRAINT invoice_cancellations_status_check');
  await knex.raw(`ALTER TABLE invoice_cancellations ADD CONSTRAINT invoice_cancellations_status_check
    CHECK (status IN ('REQUESTED','PENDING','CANCELLED','REJECTED','FAILED'))`);
  await knex.raw('DROP INDEX invoice_cancellations_one_open');
  await knex.raw(`CREATE UNIQUE INDEX invoice_cancellations_one_open ON invoice_cancellations (invoice_id) WHERE status IN ('REQUESTED','PENDING')`);
  await knex.raw('DROP INDEX invoice_cancellations_open_idx');
  await knex.raw(`CREATE INDEX invoice_cancellations_open_idx ON invoice_cancellations (updated_at) WHERE status IN ('REQUESTED','PENDING')`);
  await knex.schema.alterTable('invoice_cancellations', (t) => {
    t.dropColumn('status_since');
    t.dropColumn('attention_cause');
  });
}
