import type { Producers } from '../platform/queues.js';

/**
 * One delayed expire-due-qrs job per epoch second (shared/domain/expiry-buckets.ts); a second already
 * scheduled is a no-op (its job id). A lost job is harmless: the next bucket or the sweep expires the QR.
 */
export async function scheduleExpiryBuckets(producers: Producers, seconds: readonly number[], now: number = Date.now()): Promise<void> {
  await Promise.all(
    seconds.map((dueAt) =>
      // The delay is counted from `now`, the time the buckets were planned at.
      producers.add('expire-due-qrs', { dueAt }, { delay: Math.max(0, dueAt * 1000 - now) }),
    ),
  );
}
