import type { EventEmitter } from 'node:events';
import { Job, Queue, QueueEvents, type JobsOptions } from 'bullmq';
import { JOBS, QUEUES, type JobName, type JobSettings, type JobTypes, type QueueName } from './jobs.js';
import { bullmqConnection, type RedisClient, type RedisSettings } from './redis.js';

/** Typed producer side of every queue, on one fail-fast connection. */
export interface Producers {
  queue(name: QueueName): Queue;
  /** Adds a job with the id and options its catalog entry (shared/platform/jobs.ts, JOBS) gives; `opts` only for what one call decides. */
  add<N extends JobName>(name: N, data: JobTypes[N]['data'], opts?: JobsOptions): ReturnType<Queue['add']>;
  renderEvents: QueueEvents;
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
  const renderEvents = new QueueEvents(QUEUES.render, { connection: bullmqConnection(settings), prefix });
  renderEvents.setMaxListeners(0);
  renderEvents.on('error', () => undefined);
  await renderEvents.waitUntilReady();
  const queue = (name: QueueName): Queue => {
    const q = queues.get(name);
    if (!q) throw new Error(`unknown queue ${name}`);
    return q;
  };
  return {
    queue,
    add: (name, data, opts) => queue(JOBS[name].queue).add(name, data, { ...jobOptions(name, data, settings), ...opts }),
    renderEvents,
    async close() {
      await renderEvents.close();
      await Promise.all([...queues.values()].map((q) => q.close()));
    },
  };
}

export class JobTimeout extends Error {}
export class JobFailed extends Error {}

/** A wait for one job's result, started before the job is added. */
export interface JobWatch<R> {
  result: Promise<R>;
  /** Stops waiting (the job was never added); `result` then never settles. */
  cancel(): void;
}

/**
 * Watches for the result of the job that will have id `id`, delivered by QueueEvents, or JobTimeout after
 * `timeoutMs`. Start it *before* adding the job: the completion event can reach this process before the
 * add's own reply does (they come over two connections), and a listener attached after the add would
 * miss it. Unlike Job.waitUntilFinished it costs no extra Redis call per job and cannot leave an
 * unhandled rejection when Redis drops mid-wait (that crashes the process). The job is read from Redis
 * only at the timeout, as a last look (its result is kept a little longer than the timeout).
 */
export function watchJobResult<R>(events: QueueEvents, queue: Queue, id: string, timeoutMs: number): JobWatch<R> {
  let cancel = (): void => undefined;
  const result = new Promise<R>((resolve, reject) => {
    const onCompleted = ({ returnvalue }: { returnvalue: unknown }) => settle(() => resolve(returnvalue as R));
    const onFailed = ({ failedReason }: { failedReason: string }) => settle(() => reject(new JobFailed(failedReason)));
    const emitter = events as unknown as EventEmitter;
    const timer = setTimeout(() => {
      Job.fromId(queue, id).then(
        (fresh) =>
          settle(() => {
            if (fresh?.finishedOn && !fresh.failedReason) resolve(fresh.returnvalue as R);
            else if (fresh?.failedReason) reject(new JobFailed(fresh.failedReason));
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
      emitter.off(`completed:${id}`, onCompleted);
      emitter.off(`failed:${id}`, onFailed);
      fn();
    }
    cancel = () => settle(() => undefined);
    emitter.on(`completed:${id}`, onCompleted);
    emitter.on(`failed:${id}`, onFailed);
  });
  return { result, cancel };
}
