/**
 * Stamped invoices whose buyer's e-mail never went (issue #38): the e-mail job used its attempts (the SMTP server
 * failing, the PDF render failing) and the follow-up sweep's day (workers/sweep-invoice-follow-ups.ts) is over,
 * so nothing will send it by itself. Neither sent nor refused by the mail server (`email_refused_at`, the
 * address's fault) nor let be by an operator (`email_given_up_at`). The invoice itself is fine: the buyer's page
 * has its XML and PDF.
 */
import type { Knex } from 'knex';
import type { Db } from '../platform/db.js';

/** The follow-up sweep's window: younger ones are still its to queue again. */
export const EMAIL_FOLLOW_UP_WINDOW_MS = 24 * 3_600_000;

export const UNSENT_EMAIL_CAUSE = "the buyer's e-mail was not sent within a day of the stamp: its job failed every attempt; see the email-invoice log lines of this invoice_id";

const unsent = (db: Db, now: Date): Knex.QueryBuilder =>
  db('invoices')
    .where({ status: 'ACTIVE' })
    .whereNotNull('xml_file_key')
    .whereNull('email_sent_at')
    .whereNull('email_refused_at')
    .whereNull('email_given_up_at')
    .where('stamped_at', '<=', new Date(now.getTime() - EMAIL_FOLLOW_UP_WINDOW_MS))
    .whereRaw("coalesce(customer->>'email', '') <> ''");

export async function countUnsentInvoiceEmails(db: Db, now: Date = new Date()): Promise<number> {
  const row = (await unsent(db, now).count({ n: '*' }).first()) as { n: string | number } | undefined;
  return Number(row?.n ?? 0);
}

export async function listUnsentInvoiceEmails(db: Db, limit: number, now: Date = new Date()): Promise<{ id: string; merchantId: string; cause: string; since: Date }[]> {
  const rows = (await unsent(db, now)
    .orderBy([{ column: 'stamped_at' }, { column: 'id' }])
    .limit(limit)
    .select('id', 'merchant_id', 'stamped_at')) as {
    id: string;
    merchant_id: string;
    stamped_at: Date;
  }[];
  return rows.map((r) => ({ id: r.id, merchantId: r.merchant_id, cause: UNSENT_EMAIL_CAUSE, since: r.stamped_at }));
}

export async function isUnsentInvoiceEmail(db: Db, invoiceId: string, now: Date = new Date()): Promise<boolean> {
  return (await unsent(db, now).where({ id: invoiceId }).first('id')) !== undefined;
}

/** The operator lets it be: no e-mail, and off the list (the buyer's page still has the invoice). */
export async function giveUpInvoiceEmail(db: Db, invoiceId: string, now: Date = new Date()): Promise<boolean> {
  return (await unsent(db, now).where({ id: invoiceId }).update({ email_given_up_at: now })) === 1;
}
