import type { Knex } from 'knex';

/**
 * A buyer who scanned an offline ticket before its sale arrived leaves their tax data (issue #33): one
 * claim per ticket (key, POS sale id). WAITING until the sale arrives (then CONFIRMED with its invoice) or
 * the ticket's window passes (REFUSED, the buyer told why by e-mail). Nothing is stamped from a claim
 * alone: only once the POS has posted the sale, with the signed total.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('offline_claims', (t) => {
    t.text('key_id').notNullable().references('offline_keys.id');
    t.text('sale_id').notNullable();
    t.text('merchant_id').notNullable().references('merchants.id').onDelete('CASCADE');
    t.specificType('amount', 'numeric(15,6)').notNullable();
    t.timestamp('sold_at', { useTz: true }).notNullable();
    t.timestamp('closes_at', { useTz: true }).notNullable();
    t.jsonb('customer').notNullable();
    t.text('status').notNullable().defaultTo('WAITING');
    t.text('refusal');
    t.text('invoice_id').references('invoices.id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['key_id', 'sale_id']);
  });
  await knex.raw(`ALTER TABLE offline_claims ADD CONSTRAINT offline_claims_status_check CHECK (status IN ('WAITING','CONFIRMED','REFUSED'))`);
  await knex.raw(`CREATE INDEX offline_claims_waiting_idx ON offline_claims (closes_at) WHERE status = 'WAITING'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('offline_claims');
}
