import type { Knex } from 'knex';

/**
 * Global invoices (issue #7): sales nobody invoiced are reported to público en general, per issuer and
 * period (c_Periodicidad). Each QR carries the period it belongs to, fixed when it is created (its expiry
 * never passes that period's close), and, once reported, the global invoice that holds it: a sale is
 * reported once, and a reported sale cannot be self-invoiced.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('issuers', (t) => {
    t.text('global_periodicity').notNullable().defaultTo('04');
  });
  await knex.raw(`ALTER TABLE issuers ADD CONSTRAINT issuers_global_periodicity_check CHECK (global_periodicity IN ('01','02','03','04'))`);

  await knex.schema.alterTable('qr_transactions', (t) => {
    t.text('global_periodicity');
    t.timestamp('global_period_end', { useTz: true });
    // What the POS asked for when the period's close cut the expiry short.
    t.timestamp('requested_expires_at', { useTz: true });
    t.text('global_invoice_id').references('invoices.id');
  });
  // The global invoice job reads unreported sales of closed periods.
  await knex.raw(`CREATE INDEX qr_transactions_unreported_idx ON qr_transactions (merchant_id, global_period_end)
    WHERE global_invoice_id IS NULL AND global_period_end IS NOT NULL AND status IN ('PENDING','SCANNED','EXPIRED')`);

  await knex.schema.createTable('global_invoices', (t) => {
    t.text('invoice_id').primary().references('invoices.id');
    t.text('issuer_id').notNullable().references('issuers.id');
    t.text('merchant_id').notNullable().references('merchants.id');
    t.text('periodicity').notNullable();
    t.timestamp('period_start', { useTz: true }).notNullable();
    t.timestamp('period_end', { useTz: true }).notNullable();
    t.text('payment_form').notNullable();
    t.text('payment_method').notNullable();
    t.integer('part').notNullable();
    t.integer('tickets').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['merchant_id', 'period_end', 'payment_form', 'payment_method', 'part']);
    t.index(['issuer_id', 'period_end']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('global_invoices');
  await knex.raw('DROP INDEX IF EXISTS qr_transactions_unreported_idx');
  await knex.schema.alterTable('qr_transactions', (t) => {
    t.dropColumn('global_invoice_id');
    t.dropColumn('requested_expires_at');
    t.dropColumn('global_period_end');
    t.dropColumn('global_periodicity');
  });
  await knex.raw('ALTER TABLE issuers DROP CONSTRAINT issuers_global_periodicity_check');
  await knex.schema.alterTable('issuers', (t) => t.dropColumn('global_periodicity'));
}
