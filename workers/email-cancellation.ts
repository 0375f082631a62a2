/**
 * email-cancellation: tells the buyer, at the address given at confirmation, that their invoice was
 * cancelled (UUID, issue date, the acuse's date: void, do not deduct it). Queued once per invoice when its
 * cancellation becomes CANCELLED (workers/cancel-invoice.ts, workers/poll-cancellations.ts).
 */
import { UnrecoverableError, type Job } from 'bullmq';
import { cancelledInvoiceOf } from '../shared/cancellation/cancelled-invoice.js';
import { stampedFacts } from '../shared/cancellation/stamped-facts.js';
import { cancellationMail } from '../shared/adapters/email/cancellation-mail.js';
import { MailRejected } from '../shared/adapters/email/invoice-mailer.js';
import type { InvoicePayload } from '../shared/platform/jobs.js';
import type { Producers } from '../shared/platform/queues.js';
import { findInvoice } from '../shared/repositories/invoices.js';
import { mexicoLongDate } from '../shared/domain/time-zone.js';
import type { EmailDeps } from './email-invoice.js';

export async function emailCancellationJob(deps: EmailDeps, job: Job<InvoicePayload>): Promise<{ outcome: 'sent' | 'no-address'; qrId: string | null; uuid: string }> {
  const cancelled = await cancelledInvoiceOf(deps.db, deps.files, { invoiceId: job.data.invoiceId });
  const invoice = await findInvoice(deps.db, job.data.invoiceId);
  if (!cancelled || !invoice?.xml_file_key) throw new UnrecoverableError(`invoice ${job.data.invoiceId} is not cancelled`);
  if (!cancelled.email) return { outcome: 'no-address', qrId: invoice.transaction_id, uuid: cancelled.uuid };
  const xml = await deps.files.get(invoice.xml_file_key);
  const merchant = (await deps.db('merchants').where({ id: invoice.merchant_id }).first('name', 'contact_email')) as { name: string; contact_email: string | null } | undefined;
  if (!xml || !merchant) throw new UnrecoverableError(`invoice ${invoice.id}: XML or merchant missing`);
  const mail = cancellationMail({
    to: cancelled.email,
    uuid: cancelled.uuid,
    issuerName: stampedFacts(xml.data.toString('utf8')).issuerName,
    storeName: merchant.name,
    issuedOn: mexicoLongDate(cancelled.issuedAt.toISOString()),
    cancelledOn: mexicoLongDate(cancelled.cancelledAt),
    supportEmail: merchant.contact_email ?? undefined,
  });
  try {
    await deps.mailer.send(mail);
  } catch (err) {
    if (err instanceof MailRejected) throw new UnrecoverableError(`the mail server refused the recipient of invoice ${invoice.id}`);
    throw err;
  }
  return { outcome: 'sent', qrId: invoice.transaction_id, uuid: cancelled.uuid };
}

/** Queued after the cancellation is recorded; one per invoice. */
export async function enqueueCancellationEmail(producers: Producers, invoiceId: string): Promise<void> {
  await producers.add('email-cancellation', { invoiceId });
}
