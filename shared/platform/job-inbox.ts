import { randomUUID } from 'node:crypto';
import { redisClient, type RedisClient, type RedisSettings } from './redis.js';

/** A job's outcome, handed by the worker to the process that waits for it. */
export type InboxMessage<R = unknown> = { jobId: string; result: R } | { jobId: string; failed: string };

/**
 * The Redis stream of one process's inbox, under the queue prefix (issue #40). On a cluster (a prefix with a
 * hash tag) it hashes on its own id instead of on the prefix's tag: each API process's inbox on a master of its
 * own choosing, not every process's on the queue prefix's master. On one Redis, `<prefix>:replies:<id>`.
 */
export function inboxKey(prefix: string, inboxId: string): string {
  const tag = /\{([^}]+)\}/.exec(prefix);
  return tag ? `${prefix.replace(tag[0], tag[1]!)}:replies:{${inboxId}}` : `${prefix}:replies:${inboxId}`;
}

/** Where an API process from before the inboxes' own tags reads on a cluster: in the prefix's slot. */
function sharedSlotInboxKey(prefix: string, inboxId: string): string {
  return `${prefix}:replies:${inboxId}`;
}

/** The list an API process from before issue #40 reads its replies from (BLPOP). */
export function legacyInboxKey(prefix: string, inboxId: string): string {
  return `${prefix}:inbox:${inboxId}`;
}

/** Entries a stream inbox keeps at most (about: MAXLEN ~) when its process stops reading; it trims what it read itself. */
const INBOX_MAX_ENTRIES = 1000;
/** Seconds an inbox outlives its process: its process renews it every INBOX_RENEW_MS. */
export const INBOX_TTL_S = 60;
const INBOX_RENEW_MS = 10_000;
/** A reading process trims what it has read (one XTRIM) every this many entries read, or this often when it read fewer. */
const INBOX_TRIM_ENTRIES = 100;
const INBOX_TRIM_MS = 5000;
/** Seconds one XREAD blocks: an idle inbox costs one command per this many seconds. */
const BLOCK_S = 5;

/**
 * Hands a job's outcome to the inbox `inboxId`: one XADD, which adds only to an inbox that exists (NOMKSTREAM),
 * so a reply to a process that is gone leaves nothing behind, and needs no EXPIRE of its own (issue #40: it
 * was RPUSH and EXPIRE in a MULTI, 4 commands). No stream: the process is gone, or it is older (a rolling
 * deploy): on a cluster its stream may be in the prefix's slot (before the inboxes' own tags); before issue #40
 * it reads a list, and the reply goes there as before (RPUSH and EXPIRE of `ttlS`).
 */
export async function deliverToInbox(redis: RedisClient, prefix: string, inboxId: string, message: InboxMessage, ttlS: number): Promise<void> {
  const raw = JSON.stringify(message);
  const add = (key: string) => redis.xadd(key, 'NOMKSTREAM', 'MAXLEN', '~', INBOX_MAX_ENTRIES, '*', 'm', raw);
  if ((await add(inboxKey(prefix, inboxId))) !== null) return;
  // A cluster's API process from before the inboxes' own tags (a rolling deploy): its stream in the prefix's slot.
  const shared = sharedSlotInboxKey(prefix, inboxId);
  if (shared !== inboxKey(prefix, inboxId) && (await add(shared)) !== null) return;
  const key = legacyInboxKey(prefix, inboxId);
  const replies = await redis.multi().rpush(key, raw).expire(key, ttlS).exec();
  const failed = replies?.find(([err]) => err)?.[0];
  if (!replies || failed) throw failed ?? new Error(`reply to inbox ${inboxId} not delivered`);
}

/**
 * One process's inbox (issue #30): the results of the jobs this process waits for, and of no other's. Its id
 * is random per process; a job names it and the worker delivers there (deliverToInbox). Since issue #40 it is
 * a stream the process made and keeps alive (EXPIRE renewed every 10 s, INBOX_TTL_S): a reply is one XADD
 * and nothing is left behind by a process that died. One loop on a blocking connection of its own reads the
 * stream from the last entry it read (XREAD BLOCK) and settles the waits by job id (a message nobody waits
 * for, its wait over, is dropped); while Redis is away the messages wait in the stream. The stream is made,
 * renewed and trimmed on `redis`, the process's fail-fast connection (the blocking one is busy in its XREAD).
 * Nothing is opened before the first wait: a process that never waits (a worker) has no inbox.
 */
export class JobInbox {
  readonly id = randomUUID();
  private readonly waits = new Map<string, (message: InboxMessage) => void>();
  private connection: RedisClient | undefined;
  private loop: Promise<void> | undefined;
  private made: Promise<void> | undefined;
  private closed = false;
  private lastId = '0';
  private trimmedTo = '0';
  private trimmedAt = 0;
  private readSinceTrim = 0;
  /** The connection failed since the last renewal: the inbox may be gone with Redis's data. */
  private lost = false;
  private renewedAt = 0;
  /** Settles at close(): an XREAD caught by a cluster failover may never settle once its connection is disconnected. */
  private readonly closing: Promise<null>;
  private stop: () => void = () => undefined;

  constructor(
    private readonly prefix: string,
    private readonly redis: RedisClient,
    private readonly settings?: RedisSettings | string,
  ) {
    this.closing = new Promise((resolve) => (this.stop = () => resolve(null)));
  }

  /** Resolves once the inbox exists (made at the first call): a job naming it may be added after that. */
  ready(): Promise<void> {
    if (!this.made) {
      const made = this.make();
      this.made = made;
      // A failed make (Redis away) is tried again by the next caller.
      made.catch(() => {
        if (this.made === made) this.made = undefined;
      });
    }
    return this.made;
  }

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
    this.stop();
    // Disconnecting ends the XREAD in flight; the loop sees `closed` and returns.
    this.connection?.disconnect();
    await this.loop;
    if (this.made) await this.redis.del(inboxKey(this.prefix, this.id)).catch(() => undefined);
  }

  /** The stream, with one entry (a stream cannot be empty when made), and its time to live. */
  private async make(): Promise<void> {
    const key = inboxKey(this.prefix, this.id);
    const replies = await this.redis.multi().xadd(key, '*', 'open', '1').expire(key, INBOX_TTL_S).exec();
    const failed = replies?.find(([err]) => err)?.[0];
    if (!replies || failed) throw failed ?? new Error(`inbox ${this.id} not made`);
    this.renewedAt = Date.now();
  }

  private start(): void {
    if (this.loop || this.closed) return;
    const connection = redisClient('blocking', this.settings);
    connection.on('error', () => undefined);
    this.connection = connection;
    this.loop = this.run(connection);
  }

  private async run(connection: RedisClient): Promise<void> {
    const key = inboxKey(this.prefix, this.id);
    while (!this.closed) {
      let read: [string, [string, string[]][]][] | null;
      try {
        const pending = connection.xread('COUNT', 100, 'BLOCK', BLOCK_S * 1000, 'STREAMS', key, this.lastId);
        pending.catch(() => undefined);
        read = (await Promise.race([pending, this.closing])) as [string, [string, string[]][]][] | null;
      } catch {
        // Redis away: the blocking connection reconnects by itself; the messages wait in the stream. A Redis
        // that comes back empty (restarted without its data) lost the inbox: it is checked, and made again, first.
        this.lost = true;
        if (!this.closed) await new Promise((resolve) => setTimeout(resolve, 200));
        if (!this.closed) await this.upkeep(key);
        continue;
      }
      for (const [, entries] of read ?? []) {
        for (const [id, fields] of entries) {
          this.lastId = id;
          this.readSinceTrim += 1;
          if (fields[0] === 'm' && fields[1] !== undefined) this.dispatch(fields[1]);
        }
      }
      await this.upkeep(key);
    }
  }

  /** Trims what was read (every 100 entries or 5 s) and renews the inbox (every 10 s, and after Redis was away); makes it again if it was lost. */
  private async upkeep(key: string): Promise<void> {
    const now = Date.now();
    try {
      if (this.lastId !== this.trimmedTo && (this.readSinceTrim >= INBOX_TRIM_ENTRIES || now - this.trimmedAt >= INBOX_TRIM_MS)) {
        this.trimmedAt = now;
        this.readSinceTrim = 0;
        await this.redis.xtrim(key, 'MINID', this.lastId);
        this.trimmedTo = this.lastId;
      }
      if (this.made && (this.lost || now - this.renewedAt >= INBOX_RENEW_MS)) {
        if ((await this.redis.expire(key, INBOX_TTL_S)) === 0) await this.make();
        this.renewedAt = now;
        this.lost = false;
      }
    } catch {
      // Redis away: the next round tries again.
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
