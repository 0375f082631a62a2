import type { Config } from '../shared/platform/config.js';
import type { Db } from '../shared/platform/db.js';
import { enqueueStamp } from '../shared/invoices/enqueue-stamp.js';
import type { Producers } from '../shared/platform/queues.js';

/**
 * sweep-stamping: PostgreSQL is the truth. A confirmation still STAMPING a while after its last change
 * lost its job (Redis flushed, the enqueue after commit failed) or ran out of retries (PAC down for
 * long): queue it again. The stamp job re-sends the stored sealed document, or re-seals past 70 hours.
 */
export async function sweepStampingJob(db: Db, producers: Producers, config: Readonly<Config>): Promise<{ requeued: number }> {
  const stale = (await db('invoices')
    .where({ status: 'STAMPING' })
    // Its stamp is withheld by the PAC: named and alarmed, re-sent only when an operator clears the mark.
    .whereNull('stamp_withheld_at')
    .where('updated_at', '<', new Date(Date.now() - config.stampSweepMs))
    .orderBy('updated_at')
    .limit(1000)
    .pluck('id')) as string[];
  for (const id of stale) await enqueueStamp(producers, id);
  return { requeued: stale.length };
}
