import type { Producers } from '../platform/queues.js';

/**
 * One delayed expire-due-qrs job per epoch second (shared/domain/expiry-buckets.ts); a second already
 * scheduled is a no-op (its job id). The delay is counted when each job is added (the job catalog), so a
 * bucket fires at its second however long the request or the planning took. A lost job is harmless: the
 * next bucket or the sweep expires the QR.
 */
export async function scheduleExpiryBuckets(producers: Producers, seconds: readonly number[]): Promise<void> {
  await Promise.all(seconds.map((dueAt) => producers.add('expire-due-qrs', { dueAt })));
}
