import { enqueueStamp } from './enqueue-stamp.js';
import type { Db } from '../platform/db.js';
import { jobId } from '../platform/jobs.js';
import type { Producers } from '../platform/queues.js';
import { clearStampWithheld } from '../repositories/invoices.js';

/**
 * The operator's retry of an invoice whose stamp the PAC withheld (docs/operations.md, "Runbook"): the mark
 * cleared and its stamp job queued now. Its completed job (kept an hour under the same id) is removed first,
 * or the new one would be a no-op. The job re-sends the stored document under the same customid.
 */
export async function retryWithheldStamp(db: Db, producers: Producers, invoiceId: string): Promise<'queued' | 'not-withheld'> {
  if (!(await clearStampWithheld(db, invoiceId))) return 'not-withheld';
  await producers.queueOf('stamp-invoice', { invoiceId }).remove(jobId.stampInvoice(invoiceId));
  await enqueueStamp(producers, invoiceId);
  return 'queued';
}
