import type { Knex } from 'knex';

/**
 * Offline tickets (issue #33). A store's offline key signs the tickets its point of sale prints while it
 * cannot reach the service; the service needs the key itself to check them (HMAC), so it is encrypted
 * (AES-256-GCM), not hashed. A revoked key stops tickets sold after `revoked_at` at once and the older ones
 * at `old_tickets_until`. A sale that catches up a ticket carries the key and its moment of sale; one ticket
 * (key, POS sale id) is bound to one sale.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('offline_keys', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable().references('merchants.id').onDelete('CASCADE');
    t.binary('secret_encrypted').notNullable();
    t.integer('window_hours').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('old_tickets_until', { useTz: true });
    t.text('replaced_by').references('offline_keys.id');
    t.index(['merchant_id']);
  });
  await knex.raw('ALTER TABLE offline_keys ADD CONSTRAINT offline_keys_window_check CHECK (window_hours BETWEEN 1 AND 720)');
  await knex.schema.alterTable('qr_transactions', (t) => {
    t.text('offline_key_id').references('offline_keys.id');
    t.timestamp('sold_at', { useTz: true });
  });
  await knex.raw('CREATE UNIQUE INDEX qr_transactions_offline_ticket_key ON qr_transactions (offline_key_id, sale_id) WHERE offline_key_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS qr_transactions_offline_ticket_key');
  await knex.schema.alterTable('qr_transactions', (t) => {
    t.dropColumn('offline_key_id');
    t.dropColumn('sold_at');
  });
  await knex.schema.dropTable('offline_keys');
}
