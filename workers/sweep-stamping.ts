import type { Config } from '../shared/platform/config.js';
import type { Db } from '../shared/platform/db.js';
import { enqueueStamp } from '../shared/invoices/enqueue-stamp.js';
import type { Producers } from '../shared/platform/queues.js';
import { stallOrRequeue } from '../shared/repositories/stalled-invoices.js';

/** What a stalled invoice's cause says: the job's own errors are in its log lines (`invoice_id`). */
export const stallCause = (giveUpMs: number): string =>
  `not stamped within ${giveUpMs >= 7_200_000 ? `${Math.round(giveUpMs / 3_600_000)} hours` : `${Math.round(giveUpMs / 60_000)} minutes`} (STAMP_GIVE_UP_MS): every attempt failed or did not end; see the stamp-invoices and stamp-invoice log lines of this invoice_id`;

/**
 * sweep-stamping: PostgreSQL is the truth. A confirmation still STAMPING a while after its last change
 * lost its job (Redis flushed, the enqueue after commit failed) or ran out of retries (PAC down for
 * long): queue it again. The stamp job re-sends the stored sealed document, or re-seals past 70 hours.
 * Not forever (issue #38): one STAMPING for longer than STAMP_GIVE_UP_MS (from its confirmation or an
 * operator's retry) is marked stalled instead, announced, and left to an operator (`npm run cli -- attention`).
 */
export async function sweepStampingJob(db: Db, producers: Producers, config: Readonly<Config>, now: Date = new Date()): Promise<{ requeued: number; stalled: number }> {
  const { requeue, stalled } = await stallOrRequeue(
    db,
    new Date(now.getTime() - config.stampSweepMs),
    new Date(now.getTime() - config.stampGiveUpMs),
    stallCause(config.stampGiveUpMs),
    1000,
  );
  for (const id of requeue) await enqueueStamp(producers, id);
  return { requeued: requeue.length, stalled };
}
