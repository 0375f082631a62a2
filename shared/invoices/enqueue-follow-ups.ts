import { jobId } from '../jobs.js';
import type { Producers } from '../queues.js';

/**
 * The jobs that follow a stamp: the PDF, then the e-mail to the buyer. One job id per invoice, so a second
 * enqueue while one waits, runs or retries is a no-op. Used where the chain runs (stamp, PDF) and by the
 * sweep that re-queues what a crash between commit and enqueue left without its job.
 */
export async function enqueueInvoicePdf(producers: Producers, invoiceId: string): Promise<void> {
  await producers.add(
    'render-invoice-pdf',
    { invoiceId },
    {
      jobId: jobId.renderInvoicePdf(invoiceId),
      attempts: 5,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: { age: 3600, count: 1000 },
      removeOnFail: 100,
    },
  );
}

/** The invoice to its buyer (once: one job id per invoice), or, on request, again to any address (`to`). */
export async function enqueueInvoiceEmail(producers: Producers, backoffMs: number, invoiceId: string, to?: string): Promise<void> {
  await producers.add('email-invoice', to === undefined ? { invoiceId } : { invoiceId, to }, {
    ...(to === undefined ? { jobId: jobId.emailInvoice(invoiceId) } : {}),
    attempts: 6,
    backoff: { type: 'exponential', delay: backoffMs },
    removeOnComplete: { age: 3600, count: 1000 },
    removeOnFail: 100,
  });
}
