import { Queue, type JobsOptions } from 'bullmq';
import { deliverToInbox, JobInbox, type InboxMessage } from './job-inbox.js';
import { shardOf, shardPrefixes, shardPrefixOfId } from './queue-shards.js';
import { JOBS, QUEUES, replyTtlSeconds, shardKeyOf, type JobName, type JobSettings, type JobTypes, type QueueName } from './jobs.js';
import type { RedisClient, RedisSettings } from './redis.js';
import { pushRenderJob, type RenderLaneJob } from './render-lane.js';

/**
 * Typed producer side of every queue, on one fail-fast connection. Each queue is split into QUEUE_SHARDS
 * shards (shared/platform/queue-shards.ts); a job goes to the shard its id picks (jobs.ts, shardKeyOf), and is
 * looked up there by id.
 */
export interface Producers {
  /** How many shards each queue has. */
  readonly shards: number;
  /**
   * Shard 0's queue `name`: with QUEUE_SHARDS=1 (the tests, `npm start`) the only one. The service's own code
   * uses `queues` or `queueOf` (test/architecture checks it): with shards, a job is on its own shard.
   */
  queue(name: QueueName): Queue;
  /** Every shard's queue `name`, shard 0 first: what lists, counts or pauses a queue reads or acts on all of them. */
  queues(name: QueueName): readonly Queue[];
  /** The queue a job `name` with `data` goes to (its queue, on its shard): where it is added and looked up by id. */
  queueOf<N extends JobName>(name: N, data: JobTypes[N]['data']): Queue;
  /** Adds a job with the id and options its catalog entry (shared/platform/jobs.ts, JOBS) gives, on its shard; `opts` only for what one call decides. */
  add<N extends JobName>(name: N, data: JobTypes[N]['data'], opts?: JobsOptions): ReturnType<Queue['add']>;
  /** This process's inbox for the results of the jobs it waits for (shared/platform/job-inbox.ts); its connection opens at the first wait. */
  inbox: JobInbox;
  /** A worker hands a job's outcome to the inbox of the process that waits for it. */
  reply(inboxId: string, message: InboxMessage): Promise<void>;
  /** Hands a render job to the workers on its shard's render lane (shared/platform/render-lane.ts, issue #40). */
  pushRender(job: RenderLaneJob): Promise<void>;
  close(): Promise<void>;
}

/** A job's id and options from the catalog. */
export function jobOptions<N extends JobName>(name: N, data: JobTypes[N]['data'], settings: Readonly<JobSettings>, now: number = Date.now()): JobsOptions {
  const spec = JOBS[name];
  const id = spec.id?.(data);
  return { ...spec.options(settings, data, now), ...(id === undefined ? {} : { jobId: id }) };
}

/** The shard of a job (0 for one without a key: the scheduled ones). */
export function shardOfJob<N extends JobName>(name: N, data: JobTypes[N]['data'], shards: number): number {
  const key = shardKeyOf(name, data);
  return key === undefined ? 0 : shardOf(key, shards);
}

export async function createProducers(
  connection: RedisClient,
  settings: Readonly<JobSettings> & RedisSettings & { queuePrefix: string; queueShards: number },
  prefix: string = settings.queuePrefix,
): Promise<Producers> {
  const prefixes = shardPrefixes(prefix, settings.queueShards);
  const queues = new Map<QueueName, Queue[]>();
  for (const name of Object.values(QUEUES)) {
    queues.set(
      name,
      prefixes.map((shardPrefix) => {
        const q = new Queue(name, { connection, prefix: shardPrefix, skipWaitingForReady: true });
        // Each awaiting request adds a listener; concurrency is bounded by the HTTP server instead.
        q.setMaxListeners(0);
        q.on('error', () => undefined);
        return q;
      }),
    );
  }
  // The inbox is one stream per shard and process, beside the shard's render lane (its replies' job ids pick the shard).
  const inbox = new JobInbox(prefixes, connection, settings);
  const queuesOf = (name: QueueName): Queue[] => {
    const q = queues.get(name);
    if (!q) throw new Error(`unknown queue ${name}`);
    return q;
  };
  const queueOf = <N extends JobName>(name: N, data: JobTypes[N]['data']): Queue => queuesOf(JOBS[name].queue)[shardOfJob(name, data, prefixes.length)]!;
  return {
    shards: prefixes.length,
    queue: (name) => queuesOf(name)[0]!,
    queues: queuesOf,
    queueOf,
    add: (name, data, opts) => queueOf(name, data).add(name, data, { ...jobOptions(name, data, settings), ...opts }),
    inbox,
    reply: (inboxId, message) => deliverToInbox(connection, shardPrefixOfId(message.jobId, prefixes), prefix, inboxId, message, replyTtlSeconds(settings)),
    pushRender: (job) => pushRenderJob(connection, prefixes, job),
    async close() {
      await inbox.close();
      await Promise.all([...queues.values()].flat().map((q) => q.close()));
    },
  };
}

/** No result came in time: the job was lost (its worker died, a failover) or its reply could not be sent (api/qrs/render-qr.ts). */
export class JobTimeout extends Error {}
/** The worker reported the job's own failure (the reply `failed`): running it again would fail the same way. */
export class JobFailed extends Error {}
