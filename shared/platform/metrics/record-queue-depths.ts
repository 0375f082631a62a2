import type { Job } from 'bullmq';
import { QUEUES } from '../jobs.js';
import type { Producers } from '../queues.js';
import { queueJobs, queueOldestWaitingAge } from './registry.js';

const STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/** Seconds since the oldest of these jobs became ready: added (or last tried) plus its delay. */
function oldestWaitingSeconds(jobs: Job[], now: number): number {
  const readyAt = jobs.map((job) => Math.max(job.timestamp, job.processedOn ?? 0) + (job.delay || 0));
  return readyAt.length === 0 ? 0 : Math.max(0, now - Math.min(...readyAt)) / 1000;
}

/**
 * Sets the queue gauges from Redis: per queue one count call and one read of the job next in line (the
 * oldest), every queue at once, so a scrape costs one round of two calls per queue. On failure the gauges
 * are emptied rather than left stale, and the error is passed on.
 */
export async function recordQueueDepths(producers: Producers, now: number = Date.now()): Promise<void> {
  try {
    const readings = await Promise.all(
      Object.values(QUEUES).map(async (name) => {
        const queue = producers.queue(name);
        const [counts, next] = await Promise.all([queue.getJobCounts(...STATES), queue.getWaiting(0, 0)]);
        return { name, counts, oldest: oldestWaitingSeconds(next, now) };
      }),
    );
    for (const { name, counts, oldest } of readings) {
      for (const state of STATES) queueJobs.set({ queue: name, state }, counts[state] ?? 0);
      queueOldestWaitingAge.set({ queue: name }, oldest);
    }
  } catch (err) {
    queueJobs.reset();
    queueOldestWaitingAge.reset();
    throw err;
  }
}
