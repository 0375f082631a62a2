import type { Knex } from 'knex';

/**
 * The sale's lines lose their foreign keys (issue #40, docs/data-growth.md "Hot reads on one partition"):
 * concepts → sale and taxes → concept. A foreign key to a partitioned table is checked, for each row
 * inserted, by a cached statement on the parent whose generic plan locks every month's partition at each run:
 * with 3 concepts and 2 taxes a sale, POST /v1/qrs's statement cost PostgreSQL 0.93 ms of CPU at the 63 months
 * a sale is kept and 0.53 ms without them (0.63 at 17 months).
 *
 * What they guarded is kept by the one writer of the lines: POST /v1/qrs's statement (RECORD_QR) writes the
 * sale with its concepts and taxes, all or nothing, from one request body, and nothing updates or deletes them;
 * a month's lines leave by DROP of their partitions with the sale's (shared/repositories/sale-months.ts, lines
 * first). Down adds them back (validating every row).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE qr_concept_taxes DROP CONSTRAINT IF EXISTS qr_concept_taxes_concept_fkey');
  await knex.raw('ALTER TABLE qr_concepts DROP CONSTRAINT IF EXISTS qr_concepts_transaction_fkey');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE qr_concepts ADD CONSTRAINT qr_concepts_transaction_fkey FOREIGN KEY (transaction_id, transaction_created_at)
    REFERENCES qr_transactions (id, created_at) ON UPDATE CASCADE ON DELETE CASCADE`);
  await knex.raw(`ALTER TABLE qr_concept_taxes ADD CONSTRAINT qr_concept_taxes_concept_fkey FOREIGN KEY (transaction_id, transaction_created_at, concept_position)
    REFERENCES qr_concepts (transaction_id, transaction_created_at, position) ON UPDATE CASCADE ON DELETE CASCADE`);
}
