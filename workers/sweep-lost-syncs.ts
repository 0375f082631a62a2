import type { Db } from '../shared/platform/db.js';
import type { Producers } from '../shared/platform/queues.js';
import { recordSyncInterrupted, SYNC_IN_PROGRESS } from '../shared/repositories/issuers.js';

const PAGE = 500;

/** What the issuer's owner reads in `synchronization.error`: no internals, and what to do. */
export const SYNC_INTERRUPTED = {
  stalled: 'the synchronization was interrupted: the worker running it stopped twice; synchronize again',
  failed: 'the synchronization was interrupted before it recorded a result; synchronize again',
  lost: 'the synchronization was interrupted: its job was lost from the queue; synchronize again',
} as const;

/**
 * sweep-lost-syncs: PostgreSQL is the truth. sync-issuer records every outcome itself, but a job that stalls
 * twice (its worker died twice mid-call) is failed by BullMQ without running it again, a Redis that lost its
 * data loses waiting and running jobs, and a last attempt whose FAILED could not be written (PostgreSQL
 * down) ends the job anyway: the issuer then said PENDING, RUNNING or RETRY_SCHEDULED forever. A
 * synchronization in progress whose job is gone, completed or failed is recorded FAILED with the reason; a
 * job still waiting, delayed or running is left alone. The owner synchronizes again (a new job starts: the
 * deduplication key ends with the job).
 */
export async function sweepLostSyncsJob(db: Db, producers: Producers): Promise<{ failed: number }> {
  let failed = 0;
  let after = '';
  for (;;) {
    const page = (await db('issuers')
      .whereIn('sync_status', SYNC_IN_PROGRESS)
      .whereNotNull('sync_job_id')
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .select('id', 'sync_job_id')) as { id: string; sync_job_id: string }[];
    for (const row of page) {
      const job = await producers.queueOf('sync-issuer', { issuerId: row.id }).getJob(row.sync_job_id);
      const state = job ? await job.getState() : 'unknown';
      if (state !== 'completed' && state !== 'failed' && state !== 'unknown') continue;
      const reason = state === 'unknown' ? SYNC_INTERRUPTED.lost : /stalled/i.test(job?.failedReason ?? '') ? SYNC_INTERRUPTED.stalled : SYNC_INTERRUPTED.failed;
      if (await recordSyncInterrupted(db, row.id, row.sync_job_id, reason, new Date())) failed++;
    }
    if (page.length < PAGE) return { failed };
    after = page[page.length - 1]!.id;
  }
}
