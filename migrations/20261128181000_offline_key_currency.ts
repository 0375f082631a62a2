import type { Knex } from 'knex';

/**
 * The currency of an offline key's tickets (issue #39): a ticket carries its total but no currency, so the key
 * says it (SAT's c_Moneda code, MXN unless the store chose another when it made the key). The buyer's waiting
 * page shows the total with it; a sale that catches up a ticket in another currency is refused.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('offline_keys', (t) => {
    t.text('currency').notNullable().defaultTo('MXN');
  });
  await knex.raw(`ALTER TABLE offline_keys ADD CONSTRAINT offline_keys_currency_check CHECK (currency ~ '^[A-Z]{3}$')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('offline_keys', (t) => {
    t.dropColumn('currency');
  });
}
