import { Worker, type Job, type Queue, type WorkerOptions } from 'bullmq';
import type { Logger } from 'pino';
import { PacCredentialsRejected, PacThrottled } from '../shared/adapters/pac/pac-client.js';

export interface PacPauses {
  /** PAC_AUTH_RETRY_MS: while the PAC refuses the service's credentials. */
  credentialsMs: number;
  /** While the PAC throttles the account and says for how long not (no Retry-After): PAC_BACKOFF_MS. */
  throttledMs: number;
}

/** A throttled PAC's own Retry-After is obeyed within these bounds: a second at least, five minutes at most. */
const THROTTLE_MIN_MS = 1000;
const THROTTLE_MAX_MS = 300_000;

/** How long the queue pauses for what the PAC answered, or undefined when the answer is not about every call. */
export function pauseFor(err: unknown, pauses: PacPauses): number | undefined {
  if (err instanceof PacCredentialsRejected) return pauses.credentialsMs;
  if (err instanceof PacThrottled) return Math.min(THROTTLE_MAX_MS, Math.max(THROTTLE_MIN_MS, err.retryAfterMs ?? pauses.throttledMs));
  return undefined;
}

/**
 * A queue whose jobs call the PAC with the service's credentials (stamp, cancel): when the PAC refuses them, or
 * throttles the account (429), no job of it can succeed for a while. The job goes back to wait, its attempt not
 * spent, and the whole queue, every shard of it (`queues`), pauses in every worker process (BullMQ's manual rate
 * limit): for PAC_AUTH_RETRY_MS on refused credentials, for the PAC's Retry-After when throttled; then the next
 * job tries again, and so on until one succeeds. The credentials' alarm is pac-credentials-alarm.ts's; a throttle
 * that never ends shows as stamps waiting (the stamping sweep's and the status page's ages).
 */
export function pausingOnPac(queues: readonly Queue[], pauses: PacPauses, logger: Logger, processor: (job: Job) => Promise<unknown>): (job: Job) => Promise<unknown> {
  return async (job) => {
    try {
      return await processor(job);
    } catch (err) {
      const pauseMs = pauseFor(err, pauses);
      if (pauseMs === undefined) throw err;
      // The credentials have their alarm's line; a throttle is said here, once per job it sends back.
      if (err instanceof PacThrottled) logger.warn({ queue: job.queueName, job: job.name, job_id: job.id, pause_ms: pauseMs, err }, 'PAC throttled: queue paused');
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
