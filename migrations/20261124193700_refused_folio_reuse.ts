import type { Knex } from 'knex';

/**
 * A refused confirmation (no CFDI stamped) gives its folio back: the buyer's next attempt on the same QR
 * reuses it (shared/repositories/invoices.ts, recordConfirmation), so refusals leave no gaps in the
 * merchant's numbering. A folio is then unique among the invoices that are not REFUSED; a refused row
 * keeps the folio it was refused with, for the record.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table invoices drop constraint invoices_merchant_id_folio_unique');
  await knex.raw("create unique index invoices_merchant_folio_live on invoices (merchant_id, folio) where status <> 'REFUSED'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index invoices_merchant_folio_live');
  await knex.raw('alter table invoices add constraint invoices_merchant_id_folio_unique unique (merchant_id, folio)');
}
