import type { Knex } from 'knex';

/**
 * An invoice the PAC says it stamped but whose stamp it did not hand over through a stamp job's every attempt
 * (SW's "307" or "CFDI3307" without the CFDI, issue #38): when the job gave up on it. The sweep leaves such an
 * invoice alone (re-sending cannot help until SW hands the stamp over), and it is named, counted and alarmed
 * until an operator retries it (docs/operations.md, "Runbook").
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.timestamp('stamp_withheld_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.dropColumn('stamp_withheld_at');
  });
}
