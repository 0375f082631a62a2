import type { Knex } from 'knex';

/**
 * Cancellation of stamped invoices (issue #7). The invoice carries where it stands (CANCELLING while the
 * request goes to the PAC, CANCELLATION_PENDING while SAT waits for the receptor, CANCELLED,
 * CANCELLATION_REJECTED); each request is a row of its own, so a rejected one can be asked again and the
 * history stays. At most one open request per invoice: a unique index, not a read-then-write.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE invoices DROP CONSTRAINT invoices_status_check');
  await knex.raw(`ALTER TABLE invoices ADD CONSTRAINT invoices_status_check
    CHECK (status IN ('STAMPING','REFUSED','ACTIVE','CANCELLING','CANCELLATION_PENDING','CANCELLED','CANCELLATION_REJECTED'))`);

  await knex.schema.createTable('invoice_cancellations', (t) => {
    t.text('id').primary();
    t.text('invoice_id').notNullable().references('invoices.id');
    t.text('motive').notNullable();
    t.text('substitution_uuid');
    t.text('status').notNullable();
    // What the service told the merchant before sending: whether SAT asks the receptor, and why.
    t.text('acceptance').notNullable();
    t.text('acceptance_reason').notNullable();
    t.text('sat_code');
    t.text('sat_status');
    t.jsonb('refusal');
    t.text('acuse_file_key');
    t.timestamp('requested_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('resolved_at', { useTz: true });
    t.index(['invoice_id']);
  });
  await knex.raw(`ALTER TABLE invoice_cancellations ADD CONSTRAINT invoice_cancellations_status_check
    CHECK (status IN ('REQUESTED','PENDING','CANCELLED','REJECTED','FAILED'))`);
  await knex.raw(`ALTER TABLE invoice_cancellations ADD CONSTRAINT invoice_cancellations_motive_check CHECK (motive IN ('01','02','03','04'))`);
  await knex.raw(`CREATE UNIQUE INDEX invoice_cancellations_one_open ON invoice_cancellations (invoice_id) WHERE status IN ('REQUESTED','PENDING')`);
  await knex.raw(`CREATE INDEX invoice_cancellations_open_idx ON invoice_cancellations (updated_at) WHERE status IN ('REQUESTED','PENDING')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('invoice_cancellations');
  await knex.raw(`UPDATE invoices SET status = 'ACTIVE' WHERE status IN ('CANCELLING','CANCELLATION_PENDING','CANCELLED','CANCELLATION_REJECTED')`);
  await knex.raw('ALTER TABLE invoices DROP CONSTRAINT invoices_status_check');
  await knex.raw(`ALTER TABLE invoices ADD CONSTRAINT invoices_status_check CHECK (status IN ('STAMPING','REFUSED','ACTIVE'))`);
}
