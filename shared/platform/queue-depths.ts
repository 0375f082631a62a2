import type { Job } from 'bullmq';
import { QUEUES, type QueueName } from './jobs.js';
import type { Producers } from './queues.js';

export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

export interface QueueDepth {
  queue: QueueName;
  /** `delayed` leaves out the sweeps' next runs: those are `scheduled`. */
  counts: Record<QueueState, number>;
  /** Job schedulers (periodic sweeps), each always holding its next run: not work held back. */
  scheduled: number;
  /** How long the job next in line has been ready; 0 when none waits. */
  oldestWaitingSeconds: number;
}

/** Seconds since the oldest of these jobs became ready: added (or last tried) plus its delay. */
function oldestWaitingSeconds(jobs: Job[], now: number): number {
  const readyAt = jobs.map((job) => Math.max(job.timestamp, job.processedOn ?? 0) + (job.delay || 0));
  return readyAt.length === 0 ? 0 : Math.max(0, now - Math.min(...readyAt)) / 1000;
}

/**
 * How many of the queue's delayed jobs are its schedulers' next runs. BullMQ keeps each scheduler's next
 * run as a delayed job (`repeat:<scheduler id>:<time>`): on an idle system they would read as work held
 * back, so the status page looked stuck (issue #29).
 */
async function delayedSweeps(q: ReturnType<Producers['queue']>): Promise<{ scheduled: number; delayed: number }> {
  const schedulers = await q.getJobSchedulers(0, -1);
  const states = await Promise.all(schedulers.flatMap((s) => (s.next === undefined ? [] : [q.getJobState(`repeat:${s.key}:${s.next}`)])));
  return { scheduled: schedulers.length, delayed: states.filter((state) => state === 'delayed').length };
}

/**
 * Every queue of QUEUES from Redis: per queue one count call, one read of the job next in line (the
 * oldest) and one of the job schedulers (a handful), every queue at once.
 */
export async function readQueueDepths(producers: Producers, now: number = Date.now()): Promise<QueueDepth[]> {
  return Promise.all(
    Object.values(QUEUES).map(async (queue) => {
      const q = producers.queue(queue);
      const [counts, next, sweeps] = await Promise.all([q.getJobCounts(...QUEUE_STATES), q.getWaiting(0, 0), delayedSweeps(q)]);
      const depth = Object.fromEntries(QUEUE_STATES.map((state) => [state, counts[state] ?? 0])) as Record<QueueState, number>;
      depth.delayed = Math.max(0, depth.delayed - sweeps.delayed);
      return { queue, counts: depth, scheduled: sweeps.scheduled, oldestWaitingSeconds: oldestWaitingSeconds(next, now) };
    }),
  );
}
