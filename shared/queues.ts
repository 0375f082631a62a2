import { Queue, QueueEvents, type ConnectionOptions, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { config } from './config.js';
import { QUEUES, type JobName, type JobTypes, type QueueName } from './jobs.js';
import { redisOptions } from './redis.js';

/** Typed producer side of every queue, on one fail-fast connection. */
export interface Producers {
  queue(name: QueueName): Queue;
  add<N extends JobName>(name: N, data: JobTypes[N]['data'], opts?: JobsOptions): ReturnType<Queue['add']>;
  renderEvents: QueueEvents;
  close(): Promise<void>;
}

const QUEUE_OF: { [N in JobName]: JobTypes[N]['queue'] } = {
  'render-qr': QUEUES.render,
  'expire-qr': QUEUES.expiry,
  'sweep-expired-qrs': QUEUES.expiry,
};

export function queueOf(name: JobName): QueueName {
  return QUEUE_OF[name];
}

export async function createProducers(connection: Redis, prefix: string = config().queuePrefix): Promise<Producers> {
  const queues = new Map<QueueName, Queue>();
  for (const name of Object.values(QUEUES)) {
    const q = new Queue(name, { connection, prefix, skipWaitingForReady: true });
    // Each awaiting request adds a listener; concurrency is bounded by the HTTP server instead.
    q.setMaxListeners(0);
    q.on('error', () => undefined);
    queues.set(name, q);
  }
  const renderEvents = new QueueEvents(QUEUES.render, { connection: redisOptions('blocking') as ConnectionOptions, prefix });
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
    add: (name, data, opts) => queue(queueOf(name)).add(name, data, opts),
    renderEvents,
    async close() {
      await renderEvents.close();
      await Promise.all([...queues.values()].map((q) => q.close()));
    },
  };
}
