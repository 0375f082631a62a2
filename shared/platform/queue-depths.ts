import type { Job } from 'bullmq';
import { QUEUES, type QueueName } from './jobs.js';
import type { Producers } from './queues.js';

export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

export interface QueueDepth {
  queue: QueueName;
  counts: Record<QueueState, number>;
  /** How long the job next in line has been ready; 0 when none waits. */
  oldestWaitingSeconds: number;
}

/** Seconds since the oldest of these jobs became ready: added (or last tried) plus its delay. */
function oldestWaitingSeconds(jobs: Job[], now: number): number {
  const readyAt = jobs.map((job) => Math.max(job.timestamp, job.processedOn ?? 0) + (job.delay || 0));
  return readyAt.length === 0 ? 0 : Math.max(0, now - Math.min(...readyAt)) / 1000;
}

/**
 * Every queue of QUEUES from Redis: per queue one count call and one read of the job next in line (the
 * oldest), every queue at once, so a reading costs one round of two calls per queue.
 */
export async function readQueueDepths(producers: Producers, now: number = Date.now()): Promise<QueueDepth[]> {
  return Promise.all(
    Object.values(QUEUES).map(async (queue) => {
      const q = producers.queue(queue);
      const [counts, next] = await Promise.all([q.getJobCounts(...QUEUE_STATES), q.getWaiting(0, 0)]);
      return {
        queue,
        counts: Object.fromEntries(QUEUE_STATES.map((state) => [state, counts[state] ?? 0])) as Record<QueueState, number>,
        oldestWaitingSeconds: oldestWaitingSeconds(next, now),
      };
    }),
  );
}
