import type { Knex } from 'knex';

/**
 * The PDF is rendered when first asked for (issue #31): the e-mail after a stamp renders the one it attaches,
 * so an invoice waits for its e-mail from its stamp on, with or without a kept PDF, and none waits for a PDF.
 * The sweep (workers/sweep-invoice-follow-ups.ts) looks for stamped invoices without their e-mail.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX invoices_email_due_idx ON invoices (stamped_at, id)
    WHERE xml_file_key IS NOT NULL AND email_sent_at IS NULL AND email_refused_at IS NULL`);
  await knex.raw('DROP INDEX IF EXISTS invoices_email_pending_idx');
  await knex.raw('DROP INDEX IF EXISTS invoices_pdf_pending_idx');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX invoices_pdf_pending_idx ON invoices (stamped_at, id) WHERE xml_file_key IS NOT NULL AND pdf_file_key IS NULL');
  await knex.raw(`CREATE INDEX invoices_email_pending_idx ON invoices (stamped_at, id)
    WHERE pdf_file_key IS NOT NULL AND email_sent_at IS NULL AND email_refused_at IS NULL`);
  await knex.raw('DROP INDEX IF EXISTS invoices_email_due_idx');
}
