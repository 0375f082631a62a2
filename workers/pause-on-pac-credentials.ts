import { Worker, type Job, type Queue, type WorkerOptions } from 'bullmq';
import { PacCredentialsRejected } from '../shared/adapters/pac/pac-client.js';

/**
 * A queue whose jobs call the PAC with the service's credentials (stamp, cancel): when the PAC refuses them,
 * no job of it can succeed until an operator (or a renewal) fixes them. The job goes back to wait, its attempt
 * not spent, and the whole queue, every shard of it (`queues`), pauses for `pauseMs` in every worker process
 * (BullMQ's manual rate limit); then the next job tries again, and so on until one succeeds. The alarm is
 * pac-credentials-alarm.ts's.
 */
export function pausingOnPacCredentials(queues: readonly Queue[], pauseMs: number, processor: (job: Job) => Promise<unknown>): (job: Job) => Promise<unknown> {
  return async (job) => {
    try {
      return await processor(job);
    } catch (err) {
      if (!(err instanceof PacCredentialsRejected)) throw err;
      await Promise.all(queues.map((queue) => queue.rateLimit(pauseMs)));
      throw Worker.RateLimitError();
    }
  };
}

/**
 * BullMQ honours a manual rate limit only on a worker with a limiter: one that never limits by itself (a
 * billion jobs a second), so the pause above is the only one.
 */
export const PAUSABLE: Pick<WorkerOptions, 'limiter'> = { limiter: { max: 1_000_000_000, duration: 1000 } };
