import type { Producers } from '../platform/queues.js';
import type { InvoiceRow } from '../repositories/invoices.js';

/*
 * The job that follows a stamp: the e-mail to the buyer, with the XML and the PDF it renders
 * (workers/email-invoice.ts). One job id per invoice, so a second enqueue while one waits, runs or retries is a
 * no-op. Used by the stamp and by the sweep that re-queues what a crash between commit and enqueue, or Redis, lost.
 */

/** The invoice to its buyer (once: one job id per invoice), or, on request, again to any address (`to`). */
export async function enqueueInvoiceEmail(producers: Producers, invoiceId: string, to?: string): Promise<void> {
  await producers.add('email-invoice', to === undefined ? { invoiceId } : { invoiceId, to });
}

/** A stamped invoice to its buyer, unless sent or refused already; a global invoice (público en general) has nobody to write to. */
export async function enqueueBuyerEmail(producers: Producers, invoice: Pick<InvoiceRow, 'id' | 'customer' | 'email_sent_at' | 'email_refused_at'>): Promise<void> {
  if (!invoice.email_sent_at && !invoice.email_refused_at && invoice.customer.email) await enqueueInvoiceEmail(producers, invoice.id);
}
