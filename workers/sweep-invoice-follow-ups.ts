import type { Queue } from 'bullmq';
import type { Knex } from 'knex';
import type { Config } from '../shared/platform/config.js';
import type { Db } from '../shared/platform/db.js';
import { enqueueInvoiceEmail } from '../shared/invoices/enqueue-follow-ups.js';
import { jobId } from '../shared/platform/jobs.js';
import { EMAIL_FOLLOW_UP_WINDOW_MS } from '../shared/repositories/unsent-invoice-emails.js';
import type { Producers } from '../shared/platform/queues.js';

/** Older than this, a missing e-mail is for ops (it needs attention: shared/status/needs-attention.ts), not for the sweep. */
const WINDOW_MS = EMAIL_FOLLOW_UP_WINDOW_MS;
const PAGE = 500;

/**
 * sweep-invoice-follow-ups: PostgreSQL is the truth. A stamped invoice whose buyer's e-mail job was never
 * queued (the worker died between the stamp's commit and the enqueue), was lost with Redis, or failed by
 * stalling twice (BullMQ fails such a job without a retry) gets it again; the job renders the PDF it attaches.
 * Only changes older than STAMP_SWEEP_MS, so a job on its way is not raced, and at most a day old. A job that
 * failed for another reason is left in place for ops to see and retry.
 */
export async function sweepInvoiceFollowUpsJob(db: Db, producers: Producers, config: Readonly<Config>): Promise<{ emails: number }> {
  const settled = new Date(Date.now() - config.stampSweepMs);
  const since = new Date(Date.now() - WINDOW_MS);
  const recent = (q: Knex.QueryBuilder) => q.where('stamped_at', '>', since).where('updated_at', '<', settled);
  const emails = await eachPending(
    () =>
      recent(
        db('invoices')
          .where({ status: 'ACTIVE' })
          .whereNotNull('xml_file_key')
          .whereNull('email_sent_at')
          .whereNull('email_refused_at')
          .whereRaw("coalesce(customer->>'email', '') <> ''"),
      ),
    (id) => requeue(producers.queueOf('email-invoice', { invoiceId: id }), jobId.emailInvoice(id), () => enqueueInvoiceEmail(producers, id)),
  );
  return { emails };
}

/**
 * Every pending invoice, a page at a time in (stamped_at, id) order: invoices whose failed job is left for
 * ops stay pending, and must not hide the ones behind them.
 */
async function eachPending(query: () => Knex.QueryBuilder, visit: (id: string) => Promise<boolean>): Promise<number> {
  let requeued = 0;
  let after: { stamped_at: Date; id: string } | undefined;
  for (;;) {
    const q = query();
    if (after) q.whereRaw('(stamped_at, id) > (?, ?)', [after.stamped_at, after.id]);
    const page = (await q
      .orderBy([{ column: 'stamped_at' }, { column: 'id' }])
      .limit(PAGE)
      .select('id', 'stamped_at')) as { stamped_at: Date; id: string }[];
    for (const row of page) if (await visit(row.id)) requeued++;
    if (page.length < PAGE) return requeued;
    after = page[page.length - 1];
  }
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
