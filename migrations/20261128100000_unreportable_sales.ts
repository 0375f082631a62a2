import type { Knex } from 'knex';

/**
 * Issue #38 item 7. `unreportable`: why a sale can never be a ticket of a global invoice (its sale_id, stored
 * before the door refused such ids, holds a character the CFDI cannot: a scanner's GS, "|"). The global
 * invoice leaves it out and the period summary names it (`sale_unreportable`), instead of the whole period
 * failing on it forever. Nullable, no default: adding it rewrites nothing.
 * Sales reported in a global invoice the PAC refused before this change point at a CFDI that reports
 * nothing: they are released, so the next run reports them (as a refusal now does, recordRefusal).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('qr_transactions', (t) => t.text('unreportable'));
  await knex.raw(`UPDATE qr_transactions q SET global_invoice_id = NULL, updated_at = now()
    FROM invoices i WHERE i.id = q.global_invoice_id AND i.status = 'REFUSED'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('qr_transactions', (t) => t.dropColumn('unreportable'));
}
