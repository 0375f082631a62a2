import { Job, Queue, type JobsOptions } from 'bullmq';
import { deliverToInbox, JobInbox, type InboxMessage } from './job-inbox.js';
import { JOBS, QUEUES, replyTtlSeconds, type JobName, type JobSettings, type JobTypes, type QueueName } from './jobs.js';
import type { RedisClient, RedisSettings } from './redis.js';

/** Typed producer side of every queue, on one fail-fast connection. */
export interface Producers {
  queue(name: QueueName): Queue;
  /** Adds a job with the id and options its catalog entry (shared/platform/jobs.ts, JOBS) gives; `opts` only for what one call decides. */
  add<N extends JobName>(name: N, data: JobTypes[N]['data'], opts?: JobsOptions): ReturnType<Queue['add']>;
  /** This process's inbox for the results of the jobs it waits for (shared/platform/job-inbox.ts); its connection opens at the first wait. */
  inbox: JobInbox;
  /** A worker hands a job's outcome to the inbox of the process that waits for it. */
  reply(inboxId: string, message: InboxMessage): Promise<void>;
  close(): Promise<void>;
}

/** A job's id and options from the catalog. */
export function jobOptions<N extends JobName>(name: N, data: JobTypes[N]['data'], settings: Readonly<JobSettings>, now: number = Date.now()): JobsOptions {
  const spec = JOBS[name];
  const id = spec.id?.(data);
  return { ...spec.options(settings, data, now), ...(id === undefined ? {} : { jobId: id }) };
}

export async function createProducers(
  connection: RedisClient,
  settings: Readonly<JobSettings> & RedisSettings & { queuePrefix: string },
  prefix: string = settings.queuePrefix,
): Promise<Producers> {
  const queues = new Map<QueueName, Queue>();
  for (const name of Object.values(QUEUES)) {
    const q = new Queue(name, { connection, prefix, skipWaitingForReady: true });
    // Each awaiting request adds a listener; concurrency is bounded by the HTTP server instead.
    q.setMaxListeners(0);
    q.on('error', () => undefined);
    queues.set(name, q);
  }
  const inbox = new JobInbox(prefix, settings);
  const queue = (name: QueueName): Queue => {
    const q = queues.get(name);
    if (!q) throw new Error(`unknown queue ${name}`);
    return q;
  };
  return {
    queue,
    add: (name, data, opts) => queue(JOBS[name].queue).add(name, data, { ...jobOptions(name, data, settings), ...opts }),
    inbox,
    reply: (inboxId, message) => deliverToInbox(connection, prefix, inboxId, message, replyTtlSeconds(settings)),
    async close() {
      await inbox.close();
      await Promise.all([...queues.values()].map((q) => q.close()));
    },
  };
}

/** No result came in time; the job may still run, or it failed without saying so (its worker lost Redis, or died). */
export class JobTimeout extends Error {}
/** The worker reported the job's own failure (the reply `failed`): running it again would fail the same way. */
export class JobFailed extends Error {}

/** A wait for one job's result, started before the job is added. */
export interface JobWatch<R> {
  result: Promise<R>;
  /** Stops waiting (the job was never added); `result` then never settles. */
  cancel(): void;
}

/**
 * Waits for the result of the job that will have id `id`, delivered to this process's inbox by the worker
 * (the job names the inbox in its payload): its result, JobFailed when the worker replied that the job itself
 * failed, or JobTimeout after `timeoutMs`. Start it *before* the add: a
 * reply for nobody is dropped, and a fast worker can reply before the add's own answer arrives. It cannot leave an unhandled rejection when
 * Redis drops mid-wait (that crashes the process). The job is read from Redis only at the timeout, as a
 * last look: one from before the inbox (a rolling deploy) answered in the job's result (kept a little
 * longer than the timeout), which `resultOfJob` reads. A job found failed there without a reply is still a
 * JobTimeout (issue #38): its failure never reached the inbox because Redis lost it (a failover broke the
 * worker's connection: "Connection is closed.") or its worker died, so it says nothing of the job itself.
 */
export function watchJobResult<R>(
  inbox: JobInbox,
  queue: Queue,
  id: string,
  timeoutMs: number,
  resultOfJob: (returnvalue: unknown) => R | undefined = () => undefined,
): JobWatch<R> {
  let cancel = (): void => undefined;
  const result = new Promise<R>((resolve, reject) => {
    const timer = setTimeout(() => {
      Job.fromId(queue, id).then(
        (fresh) =>
          settle(() => {
            const value = fresh?.finishedOn ? resultOfJob(fresh.returnvalue as unknown) : undefined;
            if (value !== undefined) resolve(value);
            else if (fresh?.failedReason) reject(new JobTimeout(`job ${id} failed without a reply within ${timeoutMs} ms: ${fresh.failedReason}`));
            else reject(new JobTimeout(`job ${id} did not finish within ${timeoutMs} ms`));
          }),
        (err: unknown) => settle(() => reject(err instanceof Error ? err : new Error(String(err)))),
      );
    }, timeoutMs);
    let settled = false;
    function settle(fn: () => void): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stop();
      fn();
    }
    const stop = inbox.expect(id, (message) => settle(() => ('failed' in message ? reject(new JobFailed(message.failed)) : resolve(message.result as R))));
    cancel = () => settle(() => undefined);
  });
  return { result, cancel };
}
