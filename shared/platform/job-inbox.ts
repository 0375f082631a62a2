import { randomUUID } from 'node:crypto';
import { redisClient, type RedisClient, type RedisSettings } from './redis.js';

/** A job's outcome, handed by the worker to the process that waits for it. */
export type InboxMessage<R = unknown> = { jobId: string; result: R } | { jobId: string; failed: string };

/**
 * The Redis stream of one process's inbox on one queue shard (issue #40): under the shard's prefix, so on a
 * cluster in the shard's slot, on the master of the render lane whose replies it takes. A process has one per
 * shard: its replies spread over the masters as the shards do, whatever the number of API processes (one
 * inbox per process, hashed on its id, put all of a process's replies on one master). One shard on one Redis:
 * `<prefix>:replies:<id>`, as before.
 */
export function inboxKey(shardPrefix: string, inboxId: string): string {
  return `${shardPrefix}:replies:${inboxId}`;
}

/** Where an API process of the release before per-shard inboxes reads on a cluster: hashed on its own id. */
function ownTagInboxKey(prefix: string, inboxId: string): string {
  const tag = /\{([^}]+)\}/.exec(prefix);
  return tag ? `${prefix.replace(tag[0], tag[1]!)}:replies:{${inboxId}}` : inboxKey(prefix, inboxId);
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
 * Hands a job's outcome to the inbox `inboxId` on the job's shard (`shardPrefix`): one XADD, which adds only to
 * an inbox that exists (NOMKSTREAM), so a reply to a process that is gone leaves nothing behind, and needs no
 * EXPIRE of its own (issue #40: it was RPUSH and EXPIRE in a MULTI, 4 commands). No stream: the process is
 * gone, or it is older (a rolling deploy): on a cluster its stream may hash on its id (before per-shard
 * inboxes) or sit in the prefix's slot (before that); before issue #40 it reads a list, and the reply goes
 * there as before (RPUSH and EXPIRE of `ttlS`).
 */
export async function deliverToInbox(redis: RedisClient, shardPrefix: string, prefix: string, inboxId: string, message: InboxMessage, ttlS: number): Promise<void> {
  const raw = JSON.stringify(message);
  const streams = new Set([inboxKey(shardPrefix, inboxId), ownTagInboxKey(prefix, inboxId), inboxKey(prefix, inboxId)]);
  for (const key of streams) if ((await redis.xadd(key, 'NOMKSTREAM', 'MAXLEN', '~', INBOX_MAX_ENTRIES, '*', 'm', raw)) !== null) return;
  const key = legacyInboxKey(prefix, inboxId);
  const replies = await redis.multi().rpush(key, raw).expire(key, ttlS).exec();
  const failed = replies?.find(([err]) => err)?.[0];
  if (!replies || failed) throw failed ?? new Error(`reply to inbox ${inboxId} not delivered`);
}

/**
 * One process's inbox (issue #30): the results of the jobs this process waits for, and of no other's. Its id
 * is random per process; a job names it and the worker delivers to the inbox's stream on the job's shard
 * (deliverToInbox). Since issue #40 each stream is one the process made and keeps alive (EXPIRE renewed every
 * 10 s, INBOX_TTL_S): a reply is one XADD and nothing is left behind by a process that died. One loop per
 * shard, on a blocking connection of its own (on a cluster an XREAD names keys of one slot, and a blocked
 * connection serves nobody else), reads its stream from the last entry it read (XREAD BLOCK); the waits are
 * settled by job id (a message nobody waits for, its wait over, is dropped); while Redis is away the messages
 * wait in the stream. The streams are made, renewed and trimmed on `redis`, the process's fail-fast
 * connection. Nothing is opened before the first wait: a process that never waits (a worker) has no inbox.
 */
export class JobInbox {
  readonly id = randomUUID();
  private readonly waits = new Map<string, (message: InboxMessage) => void>();
  private readonly streams: InboxStream[];
  private made: Promise<void> | undefined;
  private started = false;
  private closed = false;
  /** Settles at close(): an XREAD caught by a cluster failover may never settle once its connection is disconnected. */
  private readonly closing: Promise<null>;
  private stop: () => void = () => undefined;

  constructor(
    shardPrefixes: readonly string[],
    private readonly redis: RedisClient,
    private readonly settings?: RedisSettings | string,
  ) {
    this.closing = new Promise((resolve) => (this.stop = () => resolve(null)));
    this.streams = shardPrefixes.map((p) => new InboxStream(inboxKey(p, this.id)));
  }

  /** Resolves once the inbox exists on every shard (made at the first call): a job naming it may be added after that. */
  ready(): Promise<void> {
    if (!this.made) {
      const made = Promise.all(this.streams.map((stream) => stream.make(this.redis))).then(() => undefined);
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
    // Disconnecting ends the XREADs in flight; the loops see `closed` and return.
    for (const stream of this.streams) stream.connection?.disconnect();
    await Promise.all(this.streams.map((stream) => stream.loop ?? Promise.resolve()));
    if (this.made) await Promise.all(this.streams.map((stream) => this.redis.del(stream.key).catch(() => undefined)));
  }

  private start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    for (const stream of this.streams) {
      const connection = redisClient('blocking', this.settings);
      connection.on('error', () => undefined);
      stream.connection = connection;
      stream.loop = this.run(stream, connection);
    }
  }

  private async run(stream: InboxStream, connection: RedisClient): Promise<void> {
    while (!this.closed) {
      let read: [string, [string, string[]][]][] | null;
      try {
        const pending = connection.xread('COUNT', 100, 'BLOCK', BLOCK_S * 1000, 'STREAMS', stream.key, stream.lastId);
        pending.catch(() => undefined);
        read = (await Promise.race([pending, this.closing])) as [string, [string, string[]][]][] | null;
      } catch {
        // Redis away: the blocking connection reconnects by itself; the messages wait in the stream. A Redis
        // that comes back empty (restarted without its data) lost the stream: it is checked, and made again, first.
        stream.lost = true;
        if (!this.closed) await new Promise((resolve) => setTimeout(resolve, 200));
        if (!this.closed) await stream.upkeep(this.redis, this.made !== undefined);
        continue;
      }
      for (const [, entries] of read ?? []) {
        for (const [id, fields] of entries) {
          stream.lastId = id;
          stream.readSinceTrim += 1;
          if (fields[0] === 'm' && fields[1] !== undefined) this.dispatch(fields[1]);
        }
      }
      await stream.upkeep(this.redis, this.made !== undefined);
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

/** One shard's stream of an inbox, and where its reading loop stands. */
class InboxStream {
  connection: RedisClient | undefined;
  loop: Promise<void> | undefined;
  lastId = '0';
  readSinceTrim = 0;
  /** The connection failed since the last renewal: the stream may be gone with Redis's data. */
  lost = false;
  private trimmedTo = '0';
  private trimmedAt = 0;
  private renewedAt = 0;

  constructor(readonly key: string) {}

  /** The stream, with one entry (a stream cannot be empty when made), and its time to live. */
  async make(redis: RedisClient): Promise<void> {
    const replies = await redis.multi().xadd(this.key, '*', 'open', '1').expire(this.key, INBOX_TTL_S).exec();
    const failed = replies?.find(([err]) => err)?.[0];
    if (!replies || failed) throw failed ?? new Error(`inbox ${this.key} not made`);
    this.renewedAt = Date.now();
  }

  /** Trims what was read (every 100 entries or 5 s) and renews the stream (every 10 s, and after Redis was away) once made; makes it again if it was lost. */
  async upkeep(redis: RedisClient, made: boolean): Promise<void> {
    const now = Date.now();
    try {
      if (this.lastId !== this.trimmedTo && (this.readSinceTrim >= INBOX_TRIM_ENTRIES || now - this.trimmedAt >= INBOX_TRIM_MS)) {
        this.trimmedAt = now;
        this.readSinceTrim = 0;
        await redis.xtrim(this.key, 'MINID', this.lastId);
        this.trimmedTo = this.lastId;
      }
      if (made && (this.lost || now - this.renewedAt >= INBOX_RENEW_MS)) {
        if ((await redis.expire(this.key, INBOX_TTL_S)) === 0) await this.make(redis);
        this.renewedAt = now;
        this.lost = false;
      }
    } catch {
      // Redis away: the next round tries again.
    }
  }
}
