import type { Knex } from 'knex';

/**
 * Several tickets in one invoice (issue #17): every QR sale an invoice covers, in the order its concepts
 * appear. `invoices.transaction_id` stays the first ticket (the QR the buyer confirmed from, or the
 * merchant's first): the sale's events, views and folio reuse keep reading it. One ticket in two live
 * invoices is prevented where tickets are claimed: every claimed QR row is locked and must be unconfirmed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('invoice_tickets', (t) => {
    t.text('invoice_id').notNullable().references('invoices.id').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.text('transaction_id').notNullable().references('qr_transactions.id');
    t.primary(['invoice_id', 'position']);
    t.unique(['invoice_id', 'transaction_id']);
    t.index(['transaction_id']);
  });
  await knex.raw('INSERT INTO invoice_tickets (invoice_id, position, transaction_id) SELECT id, 0, transaction_id FROM invoices WHERE transaction_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('invoice_tickets');
}
