import type { Knex } from 'knex';

/**
 * How many of an invoice's `customid`s at the PAC ended with another invoice's stamp (workers/stamp-invoice.ts,
 * sendAndRecord): a stamp job starts after them. Derived before, each run walked them again from the first, so an
 * invoice whose first three had gone to twins (eight stores of one RFC numbering alike, `npm run bench`'s cluster
 * run) met the same three stamps at every attempt and stayed STAMPING until the give-up a day later. A constant
 * default: no table rewrite.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.smallint('stamp_twins').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.dropColumn('stamp_twins');
  });
}
