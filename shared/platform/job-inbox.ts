import { randomUUID } from 'node:crypto';
import { redisClient, type RedisClient, type RedisSettings } from './redis.js';

/** A job's outcome, handed by the worker to the process that waits for it. */
export type InboxMessage<R = unknown> = { jobId: string; result: R } | { jobId: string; failed: string };

/** The Redis list of one process's inbox, under the queue prefix. */
export function inboxKey(prefix: string, inboxId: string): string {
  return `${prefix}:inbox:${inboxId}`;
}

/**
 * Hands a job's outcome to the inbox `inboxId` (one RPUSH and one EXPIRE, atomic). The inbox lives `ttlS`
 * after its last message: a process that died leaves nothing behind for long.
 */
export async function deliverToInbox(redis: RedisClient, prefix: string, inboxId: string, message: InboxMessage, ttlS: number): Promise<void> {
  const key = inboxKey(prefix, inboxId);
  const replies = await redis.multi().rpush(key, JSON.stringify(message)).expire(key, ttlS).exec();
  const failed = replies?.find(([err]) => err)?.[0];
  if (!replies || failed) throw failed ?? new Error(`reply to inbox ${inboxId} not delivered`);
}

/** Seconds one BLPOP blocks: an idle inbox costs one command per this many seconds. */
const BLOCK_S = 5;

/**
 * One process's inbox (issue #30): the results of the jobs this process waits for, and of no other's. It
 * replaces a QueueEvents subscription through which every API process read every render completion of
 * every other one (O(processes × rate) for Redis). Its id is random per process; a job names it in its
 * payload and the worker delivers there (deliverToInbox). One loop on a blocking connection of its own
 * takes the messages in order and settles the waits by job id (a message nobody waits for, its wait
 * over, is dropped); while Redis is away the messages wait in the list. The connection is opened at the
 * first wait: a process that never waits (a worker) opens none.
 */
export class JobInbox {
  readonly id = randomUUID();
  private readonly waits = new Map<string, (message: InboxMessage) => void>();
  private connection: RedisClient | undefined;
  private loop: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly prefix: string,
    private readonly redis?: RedisSettings | string,
  ) {}

  /** Calls `onMessage` with job `jobId`'s message when it arrives; the returned function stops waiting. */
  expect(jobId: string, onMessage: (message: InboxMessage) => void): () => void {
    this.start();
    this.waits.set(jobId, onMessage);
    return () => {
      if (this.waits.get(jobId) === onMessage) this.waits.delete(jobId);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    // Disconnecting ends the BLPOP in flight; the loop sees `closed` and returns.
    this.connection?.disconnect();
    await this.loop;
  }

  private start(): void {
    if (this.loop || this.closed) return;
    const connection = redisClient('blocking', this.redis);
    connection.on('error', () => undefined);
    this.connection = connection;
    this.loop = this.run(connection);
  }

  private async run(connection: RedisClient): Promise<void> {
    const key = inboxKey(this.prefix, this.id);
    while (!this.closed) {
      let popped: [string, string] | null;
      try {
        popped = await connection.blpop(key, BLOCK_S);
      } catch {
        // Redis away: the blocking connection reconnects by itself; the messages wait in the list.
        if (!this.closed) await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      if (popped) this.dispatch(popped[1]);
    }
  }

  private dispatch(raw: string): void {
    let message: InboxMessage;
    try {
      message = JSON.parse(raw) as InboxMessage;
    } catch {
      return;
    }
    // A message whose wait is over (timed out) has nobody to go to.
    const onMessage = this.waits.get(message.jobId);
    if (!onMessage) return;
    this.waits.delete(message.jobId);
    onMessage(message);
  }
}
