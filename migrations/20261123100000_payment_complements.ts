import type { Knex } from 'knex';

const MONEY: [number, number] = [15, 6];

/**
 * Payment complements (issue #7) are rows of `invoices` with `cfdi_type` P. Each records, per PPD invoice
 * it pays, the installment (NumParcialidad) and the balances as decided with that invoice locked.
 *
 * `live` mirrors the complement's status (not REFUSED, not CANCELLED), kept by a trigger so no code path
 * can forget it. It exists for one index: an installment number is unique among an invoice's live
 * complements, while a cancelled complement's number can be used again by the one that replaces it, as
 * SAT expects.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payment_allocations', (t) => {
    t.text('payment_complement_id').notNullable().references('invoices.id');
    t.text('invoice_id').notNullable().references('invoices.id');
    t.integer('installment').notNullable();
    t.decimal('previous_balance', ...MONEY).notNullable();
    t.decimal('amount_paid', ...MONEY).notNullable();
    t.decimal('remaining_balance', ...MONEY).notNullable();
    t.boolean('live').notNullable().defaultTo(true);
    t.primary(['payment_complement_id', 'invoice_id']);
    t.index(['invoice_id']);
  });
  await knex.raw(`ALTER TABLE payment_allocations ADD CONSTRAINT payment_allocations_amounts_check CHECK (
    installment > 0 AND amount_paid > 0 AND remaining_balance >= 0 AND remaining_balance = previous_balance - amount_paid)`);
  await knex.raw('CREATE UNIQUE INDEX payment_allocations_live_installment ON payment_allocations (invoice_id, installment) WHERE live');
  await knex.raw(`CREATE FUNCTION payment_allocations_follow_status() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE payment_allocations SET live = NEW.status NOT IN ('REFUSED', 'CANCELLED') WHERE payment_complement_id = NEW.id;
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER payment_allocations_follow_status AFTER UPDATE OF status ON invoices
    FOR EACH ROW WHEN (NEW.cfdi_type = 'P' AND OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION payment_allocations_follow_status()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS payment_allocations_follow_status ON invoices');
  await knex.raw('DROP FUNCTION IF EXISTS payment_allocations_follow_status()');
  await knex.schema.dropTableIfExists('payment_allocations');
  await knex.raw(`DELETE FROM invoice_cancellations WHERE invoice_id IN (SELECT id FROM invoices WHERE cfdi_type = 'P')`);
  await knex.raw(`DELETE FROM invoices WHERE cfdi_type = 'P'`);
}
