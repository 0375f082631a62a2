import type { Knex } from 'knex';

/**
 * Moves a sale into the range of the table from before the months (the legacy partition), as a sale of an
 * older month is, with every row that carries its instant: its lines, its keys' row and its live-sale row (no
 * foreign key moves the lines since issue #40).
 */
export async function moveToLegacyPartition(db: Knex, id: string): Promise<void> {
  const before = db.raw(`qr_legacy_before() - interval '1 day'`);
  await db('qr_transactions').where({ id }).update({ created_at: before });
  for (const table of ['qr_concepts', 'qr_concept_taxes', 'qr_sale_keys', 'qr_live_sales'])
    await db(table).where({ transaction_id: id }).update({ transaction_created_at: before });
}
