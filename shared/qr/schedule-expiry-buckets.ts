import { jobId } from '../jobs.js';
import type { Producers } from '../queues.js';

/**
 * One delayed expire-due-qrs job per epoch second (shared/qr/expiry-buckets.ts); a second already
 * scheduled is a no-op (its job id). A lost job is harmless: the next bucket or the sweep expires the QR.
 */
export async function scheduleExpiryBuckets(producers: Producers, seconds: readonly number[], now: number = Date.now()): Promise<void> {
  await Promise.all(
    seconds.map((dueAt) =>
      producers.add(
        'expire-due-qrs',
        { dueAt },
        {
          jobId: jobId.expireDue(dueAt),
          delay: Math.max(0, dueAt * 1000 - now),
          attempts: 5,
          backoff: { type: 'exponential', delay: 1000 },
          removeOnComplete: true,
          removeOnFail: 1000,
        },
      ),
    ),
  );
}
