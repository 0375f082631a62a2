import type { Knex } from 'knex';

/**
 * Offline claims (issue #39). The first buyer to leave data on a ticket holds its claim: the SHA-256 of the
 * claim token their answer gave them; a later claim without that token is refused (claims left before this
 * migration have none and are taken over by the next claim, which sets it). And the refusals per address and
 * day, which bound the e-mails a key holder can send to any address.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('offline_claims', (t) => {
    t.binary('holder_hash');
  });
  await knex.raw(`CREATE INDEX offline_claims_refused_address_idx ON offline_claims (lower(customer->>'email'), updated_at) WHERE status = 'REFUSED'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX offline_claims_refused_address_idx');
  await knex.schema.alterTable('offline_claims', (t) => {
    t.dropColumn('holder_hash');
  });
}
