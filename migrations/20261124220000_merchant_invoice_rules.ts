import type { Knex } from 'knex';

/**
 * A merchant's invoicing rules (issue #17, #18): whether buyers may self-invoice as público en general
 * (XAXX010101000: off by default, the sale belongs in the global invoice), which CFDI uses buyers may pick
 * (null: every use SAT allows the buyer), and whether the RESICO ISR withholding applies to companies.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('merchants', (t) => {
    t.boolean('allow_generic_rfc').notNullable().defaultTo(false);
    t.specificType('allowed_cfdi_uses', 'text[]').nullable();
    t.boolean('resico_withholding').notNullable().defaultTo(true);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('merchants', (t) => {
    t.dropColumn('allow_generic_rfc');
    t.dropColumn('allowed_cfdi_uses');
    t.dropColumn('resico_withholding');
  });
}
