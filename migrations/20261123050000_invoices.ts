import type { Knex } from 'knex';

const MONEY: [number, number] = [15, 6];

/**
 * Invoices (issue #5). One row per accepted confirmation: STAMPING while the worker seals and stamps,
 * ACTIVE once stamped, REFUSED when the PAC refused the buyer's data (the buyer may then confirm again).
 * "Confirm is once" is a unique index: at most one non-refused invoice per transaction.
 */
export async function up(knex: Knex): Promise<void> {
  // Per-merchant folio sequence: one row per merchant, incremented in the confirming transaction.
  await knex.schema.createTable('merchant_folios', (t) => {
    t.text('merchant_id').primary().references('merchants.id').onDelete('CASCADE');
    t.bigInteger('last_folio').notNullable().defaultTo(0);
  });

  await knex.schema.createTable('invoices', (t) => {
    t.text('id').primary();
    t.text('transaction_id').notNullable().references('qr_transactions.id');
    t.text('merchant_id').notNullable().references('merchants.id');
    t.text('status').notNullable();
    t.text('series');
    t.bigInteger('folio').notNullable();
    t.jsonb('customer').notNullable();
    t.text('issued_local');
    // The exact sealed document: a retry re-sends it byte for byte, so the PAC can answer "already stamped".
    t.text('sealed_xml');
    t.text('uuid').unique();
    t.timestamp('stamped_at', { useTz: true });
    t.decimal('subtotal', ...MONEY);
    t.decimal('discount', ...MONEY);
    t.decimal('total', ...MONEY);
    t.text('xml_file_key');
    t.text('pdf_file_key');
    t.jsonb('refusal');
    t.timestamp('email_sent_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['merchant_id', 'folio']);
    t.index(['transaction_id']);
  });
  await knex.raw(`ALTER TABLE invoices ADD CONSTRAINT invoices_status_check CHECK (status IN ('STAMPING','REFUSED','ACTIVE'))`);
  await knex.raw(`CREATE UNIQUE INDEX invoices_one_live_per_transaction ON invoices (transaction_id) WHERE status <> 'REFUSED'`);
  await knex.raw(`CREATE INDEX invoices_stamping_idx ON invoices (updated_at) WHERE status = 'STAMPING'`);

  // Set while an accepted confirmation is being stamped: the expiry leaves such a QR alone.
  await knex.schema.alterTable('qr_transactions', (t) => {
    t.timestamp('confirmed_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('qr_transactions', (t) => t.dropColumn('confirmed_at'));
  await knex.schema.dropTableIfExists('invoices');
  await knex.schema.dropTableIfExists('merchant_folios');
}
