import type { Middleware } from 'koa';
import type { RedisClient } from '../../shared/platform/redis.js';
import { groupBySlot, groupTag } from '../../shared/platform/service-key-groups.js';
import { AppError } from '../../shared/platform/errors.js';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';

export interface RateLimit {
  /** Counter family, e.g. `ip` or `qr`. */
  scope: string;
  perMinute: number;
  /** Who is counted; undefined skips this limit for the request. */
  key(ctx: Parameters<Middleware<AppState>>[0]): string | undefined;
  /** How many hits this request counts as (1 unless given: one request may look up several things). */
  cost?(ctx: Parameters<Middleware<AppState>>[0]): number;
}

/**
 * Sliding one-minute windows counted in Redis (shared by every API process): the estimate is this minute's
 * count plus last minute's weighted by the part of it still inside the last 60 s (two fixed windows, the
 * approximation Cloudflare uses; two keys per client, no sorted set to grow). Over a limit: 429 with
 * Retry-After (when the estimate falls back under the limit). Refused requests count too, so hammering
 * does not reopen the window. If Redis cannot count, the request goes through: our outage blocks nobody.
 */
export function rateLimit(redis: RedisClient, limits: RateLimit[]): Middleware<AppState> {
  return async (ctx, next) => {
    await countAndRead(redis, limits, ctx, []);
    await next();
  };
}

/** Previous minutes' counts kept at most, per set of limits (a few MB). */
const KEPT_PREVIOUS_MAX = 50_000;

/**
 * Last minute's counts, read once per key and minute instead of on every request (issue #40: a buyer's preview
 * and confirmation cost 4 commands each, 2 of them MGETs of counts that no longer change). Kept per limiter (the
 * limits one middleware or access rule was made with, so one API's settings never read another's) for the
 * current minute only, and only a count at most half its limit: one that cannot refuse a
 * request by itself, so an operator removing a lockout's keys is obeyed at once as before.
 */
const keptPrevious = new WeakMap<readonly RateLimit[], { window: number; counts: Map<string, number> }>();

function previousCounts(limits: readonly RateLimit[], window: number): Map<string, number> {
  let kept = keptPrevious.get(limits);
  if (kept?.window !== window) keptPrevious.set(limits, (kept = { window, counts: new Map() }));
  return kept.counts;
}

/**
 * The rate limits' check with `reads` (GETs of other keys) in the same round trip: for the counters and
 * whatever the request needs to know before its first PostgreSQL statement (on a cluster, one pipeline per
 * slot, sent at once). Throws 429 when
 * a limit is over. Answers the values read, in order (null for a missing key), or undefined when Redis did not
 * answer (the request goes through uncounted).
 */
export async function countAndRead(
  redis: RedisClient,
  limits: RateLimit[],
  ctx: Parameters<Middleware<AppState>>[0],
  reads: readonly string[],
): Promise<(string | null | undefined)[] | undefined> {
  const now = Date.now();
  const window = Math.floor(now / 60_000);
  const elapsed = (now % 60_000) / 60_000;
  const keyed = limits.map((l) => ({ limit: l, id: l.key(ctx) })).filter((x): x is { limit: RateLimit; id: string } => x.id !== undefined);
  const costs = keyed.map(({ limit }) => limit.cost?.(ctx) ?? 1);
  let counts: { current: number; previous: number }[] = [];
  let values: (string | null | undefined)[] | undefined;
  if (keyed.length > 0 || reads.length > 0) {
    try {
      // Counted limits: INCRBY this minute's key. Everything only read (last minute's counts not kept, the
      // current count of a cost-0 check, the route's keys) in one MGET per slot: 1 command per counted limit
      // + 1 per slot read (one Redis: one slot; a cluster: a holder's keys share its group's tag). The key's
      // EXPIRE follows only when this INCRBY made it (issue #40: it was an EXPIRE on every request).
      const kept = previousCounts(limits, window);
      const ops: { key: string; incr?: number }[] = [];
      const at = keyed.map(({ limit, id }, i) => {
        const key = counterKey(limit.scope, id);
        const current = ops.push(costs[i]! > 0 ? { key: key + window, incr: costs[i]! } : { key: key + window }) - 1;
        const previousKey = key + (window - 1);
        const known = kept.get(previousKey);
        const previous: { known: number } | { read: number; key: string; perMinute: number } =
          known === undefined ? { read: ops.push({ key: previousKey }) - 1, key: previousKey, perMinute: limit.perMinute } : { known };
        return { current, previous };
      });
      const readAt = reads.map((key) => ops.push({ key }) - 1);
      const answers = await runGrouped(redis, ops);
      const previousRead = (previous: { read: number; key: string; perMinute: number }): number => {
        const count = Number(answers[previous.read] ?? 0);
        if (count <= previous.perMinute / 2 && kept.size < KEPT_PREVIOUS_MAX) kept.set(previous.key, count);
        return count;
      };
      counts = at.map(({ current, previous }) => ({
        current: Number(answers[current] ?? 0),
        previous: 'known' in previous ? previous.known : previousRead(previous),
      }));
      expireNewCounters(redis, keyed, costs, counts, window, ctx.state.log);
      values = readAt.map((i) => (answers[i] as string | null) ?? null);
    } catch (err) {
      ctx.state.log.warn({ err }, 'rate limit not counted');
    }
  }
  // A request counted at cost 0 (a read-only check) is refused once the count reaches the limit, not past it.
  const over = keyed.findIndex(({ limit }, i) => slidingCount(counts[i], elapsed) + (costs[i] === 0 ? 1 : 0) > limit.perMinute);
  if (over >= 0) {
    const { limit } = keyed[over]!;
    const retryAfter = retryAfterSeconds(counts[over]!, elapsed, limit.perMinute);
    throw new AppError(429, 'rate_limited', `Too many requests (${limit.perMinute} per minute per ${limit.scope}); try again in ${retryAfter} s.`, {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
  return values;
}

/**
 * One round trip: per slot (shared/platform/service-key-groups.ts, groupBySlot) a pipeline of its INCRBYs and one
 * MGET of its reads, the pipelines sent at once. Answers each op's value in order (an INCRBY's new count, a
 * read's value or null). Throws when any pipeline failed: the request then goes through uncounted.
 */
async function runGrouped(redis: RedisClient, ops: readonly { key: string; incr?: number }[]): Promise<(string | number | null)[]> {
  const answers: (string | number | null)[] = new Array<string | number | null>(ops.length).fill(null);
  const indexed = ops.map((op, i) => ({ ...op, i }));
  await Promise.all(
    groupBySlot(redis, indexed, (op) => op.key).map(async (group) => {
      const pipeline = redis.pipeline();
      const incrs = group.filter((op) => op.incr !== undefined);
      const gets = group.filter((op) => op.incr === undefined);
      for (const op of incrs) pipeline.incrby(op.key, op.incr!);
      if (gets.length > 0) pipeline.mget(...gets.map((op) => op.key));
      const results = (await pipeline.exec()) ?? [];
      const failed = results.find(([err]) => err)?.[0];
      if (failed || results.length !== incrs.length + (gets.length > 0 ? 1 : 0)) throw failed ?? new Error('rate limit pipeline not answered');
      incrs.forEach((op, n) => (answers[op.i] = results[n]![1] as number));
      if (gets.length > 0) {
        const read = results[results.length - 1]![1];
        if (!Array.isArray(read)) throw new Error('no MGET answer');
        gets.forEach((op, n) => (answers[op.i] = (read[n] as string | null) ?? null));
      }
    }),
  );
  return answers;
}

/**
 * The EXPIRE of the counters this request made (its INCRBY answered its own cost: the first hit of the minute),
 * sent without waiting: once per key and minute instead of once per request. Were it lost (the process dies
 * between the two), the key, named after its minute, is never read again after the next minute: a few bytes
 * left behind, no count wrong.
 */
function expireNewCounters(
  redis: RedisClient,
  keyed: { limit: RateLimit; id: string }[],
  costs: number[],
  counts: { current: number }[],
  window: number,
  log: AppState['log'],
): void {
  keyed.forEach(({ limit, id }, i) => {
    if (costs[i]! > 0 && counts[i]?.current === costs[i]) {
      redis.expire(counterKey(limit.scope, id) + window, 121).catch((err: unknown) => log.warn({ err }, 'rate limit counter without expiry'));
    }
  });
}

/** A limit's counter of one holder, less its minute: the holder's group tag keeps its minutes in one slot with the holder's other keys. */
function counterKey(scope: string, id: string): string {
  return `rl:${scope}:${id}:${groupTag(id)}`;
}

/**
 * Counts one hit on a limit outside its middleware: a limit checked at cost 0 (read-only) counts only what
 * failed afterwards (e.g. wrong API keys per IP). Best effort, like the check.
 */
export async function countHit(redis: RedisClient, scope: string, id: string, log: AppState['log']): Promise<void> {
  const key = counterKey(scope, id) + Math.floor(Date.now() / 60_000);
  try {
    await redis.multi().incr(key).expire(key, 121).exec();
  } catch (err) {
    log.warn({ err }, 'rate limit not counted');
  }
}

function slidingCount(count: { current: number; previous: number } | undefined, elapsed: number): number {
  return count ? count.current + count.previous * (1 - elapsed) : 0;
}

/** Seconds until the sliding estimate is back within the limit (1..120). */
export function retryAfterSeconds(count: { current: number; previous: number }, elapsed: number, perMinute: number): number {
  let wait: number; // in minutes
  if (count.current <= perMinute && count.previous > 0) {
    // Within this minute, as last minute's share fades.
    wait = 1 - elapsed - (perMinute - count.current) / count.previous;
  } else {
    // This minute alone is over: into the next one, until this minute's fading share is small enough.
    wait = 1 - elapsed + Math.max(0, 1 - perMinute / Math.max(1, count.current));
  }
  return Math.min(120, Math.max(1, Math.ceil(wait * 60)));
}

/**
 * Short-code lookups (page and API share the counter): few per IP, since codes are found by guessing.
 * `lookups`: how many codes the request looks up (a buyer's further tickets), when not one.
 */
export function shortCodeRateLimit(deps: Pick<ApiDeps, 'redis' | 'config'>, lookups?: (ctx: Parameters<Middleware<AppState>>[0]) => number): Middleware<AppState> {
  return rateLimit(deps.redis, [
    {
      scope: 'code-ip',
      perMinute: deps.config.publicCodeRatePerIp,
      key: (ctx) => (lookups && lookups(ctx) === 0 ? undefined : ctx.ip),
      cost: lookups,
    },
  ]);
}
