import type { Queue } from 'bullmq';
import type { Config } from '../shared/config.js';
import type { Db } from '../shared/db.js';
import { enqueueInvoiceEmail, enqueueInvoicePdf } from '../shared/invoices/enqueue-follow-ups.js';
import { QUEUES, jobId } from '../shared/jobs.js';
import type { Producers } from '../shared/queues.js';

/** Older than this, a missing PDF or e-mail is for ops (bull-board, the resend button), not for the sweep. */
const WINDOW_MS = 24 * 3600_000;
const BATCH = 500;

/**
 * sweep-invoice-follow-ups: PostgreSQL is the truth. A stamped invoice whose PDF job was never queued (the
 * worker died between the stamp's commit and the enqueue), was lost with Redis, or failed by stalling twice
 * (BullMQ fails such a job without a retry) gets it again; likewise the buyer's e-mail of an invoice with
 * its PDF. Only changes older than STAMP_SWEEP_MS, so a job on its way is not raced, and at most a day old.
 * A job that failed for another reason is left in place for ops to see and retry.
 */
export async function sweepInvoiceFollowUpsJob(db: Db, producers: Producers, config: Readonly<Config>): Promise<{ pdfs: number; emails: number }> {
  const settled = new Date(Date.now() - config.stampSweepMs);
  const since = new Date(Date.now() - WINDOW_MS);
  const withoutPdf = (await db('invoices').whereNotNull('xml_file_key').whereNull('pdf_file_key')
    .where('stamped_at', '>', since).where('updated_at', '<', settled).orderBy('stamped_at').limit(BATCH).pluck('id')) as string[];
  const withoutEmail = (await db('invoices').where({ status: 'ACTIVE' }).whereNotNull('pdf_file_key').whereNull('email_sent_at').whereNull('email_refused_at')
    .whereRaw("coalesce(customer->>'email', '') <> ''")
    .where('stamped_at', '>', since).where('updated_at', '<', settled).orderBy('stamped_at').limit(BATCH).pluck('id')) as string[];
  let pdfs = 0;
  let emails = 0;
  for (const id of withoutPdf) {
    if (await requeue(producers.queue(QUEUES.pdf), jobId.renderInvoicePdf(id), () => enqueueInvoicePdf(producers, id))) pdfs++;
  }
  for (const id of withoutEmail) {
    if (await requeue(producers.queue(QUEUES.email), jobId.emailInvoice(id), () => enqueueInvoiceEmail(producers, config.emailBackoffMs, id))) emails++;
  }
  return { pdfs, emails };
}

/** Queues the job when none has this id; retries it when it failed by stalling; leaves a live one alone. */
async function requeue(queue: Queue, id: string, enqueue: () => Promise<void>): Promise<boolean> {
  const job = await queue.getJob(id);
  if (!job) {
    await enqueue();
    return true;
  }
  if ((await job.isFailed()) && /stalled/i.test(job.failedReason ?? '')) {
    await job.retry('failed');
    return true;
  }
  return false;
}
