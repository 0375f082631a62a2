import type { Knex } from 'knex';

const MONEY: [number, number] = [15, 6];

/**
 * Credit notes (issue #7) are CFDI too: rows of `invoices` with `cfdi_type` E, no QR transaction, and the
 * document to build kept in `document` (what the merchant asked for, resolved against the invoices it
 * credits). Each credit note records how much of each related invoice it credits; the sum of the live
 * ones never exceeds an invoice's total (checked with the invoice rows locked).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.text('cfdi_type').notNullable().defaultTo('I');
    t.jsonb('document');
  });
  await knex.raw('ALTER TABLE invoices ALTER COLUMN transaction_id DROP NOT NULL');
  await knex.raw(`ALTER TABLE invoices ADD CONSTRAINT invoices_cfdi_type_check CHECK (cfdi_type IN ('I','E','P'))`);
  await knex.raw(`ALTER TABLE invoices ADD CONSTRAINT invoices_document_check CHECK (transaction_id IS NOT NULL OR document IS NOT NULL)`);

  await knex.schema.createTable('credit_allocations', (t) => {
    t.text('credit_note_id').notNullable().references('invoices.id');
    t.text('invoice_id').notNullable().references('invoices.id');
    t.decimal('amount', ...MONEY).notNullable();
    t.primary(['credit_note_id', 'invoice_id']);
    t.index(['invoice_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('credit_allocations');
  await knex.raw(`DELETE FROM invoices WHERE transaction_id IS NULL`);
  await knex.raw('ALTER TABLE invoices DROP CONSTRAINT invoices_document_check');
  await knex.raw('ALTER TABLE invoices DROP CONSTRAINT invoices_cfdi_type_check');
  await knex.raw('ALTER TABLE invoices ALTER COLUMN transaction_id SET NOT NULL');
  await knex.schema.alterTable('invoices', (t) => {
    t.dropColumn('document');
    t.dropColumn('cfdi_type');
  });
}
