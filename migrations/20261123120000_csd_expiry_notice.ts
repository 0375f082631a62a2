import type { Knex } from 'knex';

/** When the merchant was told its CSD expires within 30 days (webhook csd.expiring); a new CSD clears it. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('merchant_csds', (t) => {
    t.timestamp('expiry_notified_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('merchant_csds', (t) => t.dropColumn('expiry_notified_at'));
}
