import type { Knex } from 'knex';

/**
 * The sweep that re-queues a stamped invoice's PDF and e-mail (workers/sweep-invoice-follow-ups.ts) looks
 * only at the few invoices still waiting for one: partial indexes keep it cheap on a table of millions.
 * `email_refused_at` records a permanent refusal, so the sweep does not write to a dead address forever.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.timestamp('email_refused_at', { useTz: true });
  });
  await knex.raw('create index invoices_pdf_pending_idx on invoices (stamped_at, id) where xml_file_key is not null and pdf_file_key is null');
  await knex.raw(`create index invoices_email_pending_idx on invoices (stamped_at, id)
    where pdf_file_key is not null and email_sent_at is null and email_refused_at is null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index invoices_email_pending_idx');
  await knex.raw('drop index invoices_pdf_pending_idx');
  await knex.schema.alterTable('invoices', (t) => t.dropColumn('email_refused_at'));
}
