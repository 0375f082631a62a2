import type { Producers } from '../platform/queues.js';

/**
 * The jobs that follow a stamp: the PDF, then the e-mail to the buyer. One job id per invoice, so a second
 * enqueue while one waits, runs or retries is a no-op. Used where the chain runs (stamp, PDF) and by the
 * sweep that re-queues what a crash between commit and enqueue left without its job.
 */
export async function enqueueInvoicePdf(producers: Producers, invoiceId: string): Promise<void> {
  await producers.add('render-invoice-pdf', { invoiceId });
}

/** The invoice to its buyer (once: one job id per invoice), or, on request, again to any address (`to`). */
export async function enqueueInvoiceEmail(producers: Producers, invoiceId: string, to?: string): Promise<void> {
  await producers.add('email-invoice', to === undefined ? { invoiceId } : { invoiceId, to });
}
