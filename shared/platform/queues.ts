import { Queue, type JobsOptions } from 'bullmq';
import { deliverToInbox, JobInbox, type InboxMessage } from './job-inbox.js';
import { JOBS, QUEUES, replyTtlSeconds, type JobName, type JobSettings, type JobTypes, type QueueName } from './jobs.js';
import type { RedisClient, RedisSettings } from './redis.js';
import { pushRenderJob, type RenderLaneJob } from './render-lane.js';

/** Typed producer side of every queue, on one fail-fast connection. */
export interface Producers {
  queue(name: QueueName): Queue;
  /** Adds a job with the id and options its catalog entry (shared/platform/jobs.ts, JOBS) gives; `opts` only for what one call decides. */
  add<N extends JobName>(name: N, data: JobTypes[N]['data'], opts?: JobsOptions): ReturnType<Queue['add']>;
  /** This process's inbox for the results of the jobs it waits for (shared/platform/job-inbox.ts); its connection opens at the first wait. */
  inbox: JobInbox;
  /** A worker hands a job's outcome to the inbox of the process that waits for it. */
  reply(inboxId: string, message: InboxMessage): Promise<void>;
  /** Hands a render job to the workers on the render lane (shared/platform/render-lane.ts, issue #40). */
  pushRender(job: RenderLaneJob): Promise<void>;
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
  const inbox = new JobInbox(prefix, connection, settings);
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
    pushRender: (job) => pushRenderJob(connection, prefix, job),
    async close() {
      await inbox.close();
      await Promise.all([...queues.values()].map((q) => q.close()));
    },
  };
}

/** No result came in time: the job was lost (its worker died, a failover) or its reply could not be sent (api/qrs/render-qr.ts). */
export class JobTimeout extends Error {}
/** The worker reported the job's own failure (the reply `failed`): running it again would fail the same way. */
export class JobFailed extends Error {}
