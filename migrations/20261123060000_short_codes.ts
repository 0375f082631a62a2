import type { Knex } from 'knex';

/**
 * Short codes (issue #6): the code printed under the QR for a buyer whose camera cannot read it.
 * Unique among all transactions so a code never names two sales, even after one has expired.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('qr_transactions', (t) => {
    t.text('short_code');
  });
  await knex.raw('CREATE UNIQUE INDEX qr_transactions_short_code_key ON qr_transactions (short_code) WHERE short_code IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS qr_transactions_short_code_key');
  await knex.schema.alterTable('qr_transactions', (t) => t.dropColumn('short_code'));
}
