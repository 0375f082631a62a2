import type { RenderQrPayload } from './jobs.js';
import { shardPrefixOfId } from './queue-shards.js';
import { redisClient, type RedisClient, type RedisSettings } from './redis.js';

/**
 * The render lane (issue #40): a sale's QR images, rendered by a worker process, handed over in a plain Redis
 * list instead of a BullMQ job. A BullMQ job cost about 30 commands (its add, fetch and finish scripts, their
 * event stream entries, the worker's polling) for a render of a third of a millisecond, so a sale cost 20 to
 * 40 commands whenever its render job carried few QRs (low traffic, several API processes). Here a job costs
 * 4: the API's LPUSH, the worker's BRPOP, its reply's XADD and the API's XREAD (shared/platform/job-inbox.ts),
 * all on the job's shard.
 *
 * What BullMQ gave a render job and what stands in for it: a job lost with its worker (killed) or with a
 * failover (a list entry not yet replicated) was never run again in time anyway (BullMQ's stalled check runs
 * every 30 s, the request waits RENDER_TIMEOUT_MS): its request answers 503 `qr_render_timeout` and the POS
 * retries with its idempotency key, as before. A reply lost to Redis (issue #38) is sent again by the worker
 * (deliverRenderReply), not rendered again. A job whose request has given up (its `deadline` passed: a worker
 * that was down and comes back to a backlog) is dropped unrendered.
 */
export interface RenderLaneJob extends RenderQrPayload {
  /** The reply's job id: the API names it before the push and waits for it in its inbox. */
  id: string;
  replyTo: string;
  /** Epoch ms after which nobody waits for the images. */
  deadline: number;
}

/**
 * The list of render jobs waiting on one queue shard, under the shard's prefix (beside BullMQ's `render` queue,
 * which older API processes still add to): with QUEUE_SHARDS on a cluster each shard's lane is on the shard's
 * master, so the renders spread as the queues do (issue #40). One shard: `<prefix>:render-lane`, as before.
 */
export function renderLaneKey(shardPrefix: string): string {
  return `${shardPrefix}:render-lane`;
}

/** The lane a job goes to: its id's shard (shared/platform/queue-shards.ts, shardPrefixOfId), the API's batches spread evenly; its reply comes back on that shard. */
export function laneOf(job: Pick<RenderLaneJob, 'id'>, shardPrefixes: readonly string[]): string {
  return renderLaneKey(shardPrefixOfId(job.id, shardPrefixes));
}

/** One LPUSH, on the job's lane. */
export async function pushRenderJob(redis: RedisClient, shardPrefixes: readonly string[], job: RenderLaneJob): Promise<void> {
  await redis.lpush(laneOf(job, shardPrefixes), JSON.stringify(job));
}

/** Seconds one BRPOP blocks: an idle consumer costs one command per this many seconds. */
const BLOCK_S = 5;
/** A deadline read on another machine's clock: a job is dropped this long after it, not at it. */
export const CLOCK_SLACK_MS = 1000;

/** A reply lost to Redis (issue #38: a failover closed the connection) is sent again 250 ms later, then 500, capped at 1 s, until the job's deadline. */
const REPLY_BACKOFF_MS = 250;
const REPLY_BACKOFF_MAX_MS = 1000;

/**
 * Sends a render job's reply, again after a short wait while Redis does not take it (a failover): the images
 * are in hand, so a lost reply costs a resend, not a render. Throws the last error when the deadline comes
 * first; the request then answers 503 at its timeout and the POS retries.
 */
export async function deliverRenderReply(send: () => Promise<void>, deadline: number, wait = (ms: number) => new Promise((r) => setTimeout(r, ms))): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (err) {
      const backoff = Math.min(REPLY_BACKOFF_MAX_MS, REPLY_BACKOFF_MS * 2 ** (attempt - 1));
      if (Date.now() + backoff > deadline) throw err;
      await wait(backoff);
    }
  }
}

/** What a consumer does with each job it takes (workers/render-qr.ts: render and reply). */
export type RenderLaneHandler = (job: RenderLaneJob) => Promise<void>;

/**
 * Takes the jobs of the lanes of `shardPrefixes` (the shards this worker consumes) one at a time per lane (a
 * BRPOP loop per lane on a blocking connection of its own: on a cluster a BRPOP names keys of one slot) and
 * hands each to `handle`: a render is a fraction of a millisecond of CPU, so a loop or a few per worker
 * process keep its core busy. Redis gives each job to one of the consumers blocked on its list, whatever their number.
 */
export class RenderLaneConsumer {
  private readonly connections: RedisClient[];
  private readonly loops: Promise<void>[];
  private closed = false;
  /**
   * Settles at close(): a BRPOP caught by a cluster failover (waiting in the client's redirection retries) may
   * never settle once its connection is disconnected, so the loop stops waiting for it here.
   */
  private readonly closing: Promise<null>;
  private stop: () => void = () => undefined;

  constructor(
    shardPrefixes: string | readonly string[],
    settings: RedisSettings | string,
    private readonly handle: RenderLaneHandler,
    /** An entry that is not a job (nothing to render, nobody to answer). */
    private readonly onUnreadable: (err: unknown) => void = () => undefined,
  ) {
    this.closing = new Promise((resolve) => (this.stop = () => resolve(null)));
    const lanes = (typeof shardPrefixes === 'string' ? [shardPrefixes] : shardPrefixes).map(renderLaneKey);
    this.connections = lanes.map(() => {
      const connection = redisClient('blocking', settings);
      connection.on('error', () => undefined);
      return connection;
    });
    this.loops = lanes.map((lane, i) => this.run(this.connections[i]!, lane));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stop();
    // Disconnecting ends the BRPOP in flight; the loop sees `closed` and returns.
    for (const connection of this.connections) connection.disconnect();
    await Promise.all(this.loops);
  }

  private async run(connection: RedisClient, key: string): Promise<void> {
    while (!this.closed) {
      let popped: [string, string] | null;
      try {
        const pending = connection.brpop(key, BLOCK_S);
        pending.catch(() => undefined);
        popped = await Promise.race([pending, this.closing]);
      } catch {
        // Redis away: the blocking connection reconnects by itself; the jobs wait in the list.
        if (!this.closed) await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      if (!popped) continue;
      let job: RenderLaneJob;
      try {
        job = JSON.parse(popped[1]) as RenderLaneJob;
      } catch (err) {
        this.onUnreadable(err);
        continue;
      }
      if (Date.now() > job.deadline + CLOCK_SLACK_MS) continue;
      // The handler logs its own outcome (workers/log-job-outcomes.ts); a failure here ends this job only.
      await this.handle(job).catch(() => undefined);
    }
  }
}
