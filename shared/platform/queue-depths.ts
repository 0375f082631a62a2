import type { Job, Queue } from 'bullmq';
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
async function delayedSweeps(q: Queue): Promise<{ scheduled: number; delayed: number }> {
  const schedulers = await q.getJobSchedulers(0, -1);
  const states = await Promise.all(schedulers.flatMap((s) => (s.next === undefined ? [] : [q.getJobState(`repeat:${s.key}:${s.next}`)])));
  return { scheduled: schedulers.length, delayed: states.filter((state) => state === 'delayed').length };
}

/**
 * Every queue of QUEUES from Redis, its shards summed (QUEUE_SHARDS): per queue and shard one count call, one
 * read of the job next in line (the oldest) and one of the job schedulers (a handful), all at once.
 */
export async function readQueueDepths(producers: Producers, now: number = Date.now()): Promise<QueueDepth[]> {
  return Promise.all(
    Object.values(QUEUES).map(async (queue) => {
      const shards = await Promise.all(
        producers.queues(queue).map(async (q) => {
          const [counts, next, sweeps] = await Promise.all([q.getJobCounts(...QUEUE_STATES), q.getWaiting(0, 0), delayedSweeps(q)]);
          return { counts, next, sweeps };
        }),
      );
      const depth = Object.fromEntries(QUEUE_STATES.map((state) => [state, shards.reduce((n, s) => n + (s.counts[state] ?? 0), 0)])) as Record<QueueState, number>;
      const sweeps = shards.reduce((sum, s) => ({ scheduled: sum.scheduled + s.sweeps.scheduled, delayed: sum.delayed + s.sweeps.delayed }), { scheduled: 0, delayed: 0 });
      depth.delayed = Math.max(0, depth.delayed - sweeps.delayed);
      return {
        queue,
        counts: depth,
        scheduled: sweeps.scheduled,
        oldestWaitingSeconds: oldestWaitingSeconds(
          shards.flatMap((s) => s.next),
          now,
        ),
      };
    }),
  );
}
