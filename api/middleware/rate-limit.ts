import type { Middleware } from 'koa';
import type { RedisClient } from '../../shared/platform/redis.js';
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

/** Previous minutes' counts kept at most, per Redis connection (a few MB). */
const KEPT_PREVIOUS_MAX = 50_000;

/**
 * Last minute's counts, read once per key and minute instead of on every request (issue #40: a buyer's preview
 * and confirmation cost 4 commands each, 2 of them MGETs of counts that no longer change). Kept per Redis
 * connection for the current minute only, and only a count at most half its limit: one that cannot refuse a
 * request by itself, so an operator removing a lockout's keys is obeyed at once as before.
 */
const keptPrevious = new WeakMap<RedisClient, { window: number; counts: Map<string, number> }>();

function previousCounts(redis: RedisClient, window: number): Map<string, number> {
  let kept = keptPrevious.get(redis);
  if (kept?.window !== window) keptPrevious.set(redis, (kept = { window, counts: new Map() }));
  return kept.counts;
}

/**
 * The rate limits' check with `reads` (GETs of other keys) in the same pipeline: one Redis round trip for
 * the counters and whatever the request needs to know before its first PostgreSQL statement. Throws 429 when
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
      // current count of a cost-0 check, the route's keys) in one MGET, when there is any: 1 command per
      // counted limit (+ 1). The key's EXPIRE follows only when this INCRBY made it (issue #40: it was an
      // EXPIRE on every request).
      const kept = previousCounts(redis, window);
      const pipeline = redis.pipeline();
      const mget: string[] = [];
      const at = keyed.map(({ limit, id }, i) => {
        const key = counterKey(limit.scope, id);
        let current: { incr: number } | { read: number };
        if (costs[i]! > 0) {
          current = { incr: pipeline.length };
          pipeline.incrby(key + window, costs[i]!);
        } else current = { read: mget.push(key + window) - 1 };
        const previousKey = key + (window - 1);
        const known = kept.get(previousKey);
        const previous: { known: number } | { read: number; key: string; perMinute: number } =
          known === undefined ? { read: mget.push(previousKey) - 1, key: previousKey, perMinute: limit.perMinute } : { known };
        return { current, previous };
      });
      const readAt = reads.map((key) => mget.push(key) - 1);
      if (mget.length > 0) pipeline.mget(...mget);
      const results = (await pipeline.exec()) ?? [];
      let answered: (string | null)[] = [];
      if (mget.length > 0) {
        const [mgetError, read] = results[results.length - 1] ?? [new Error('no answer'), undefined];
        if (mgetError || !Array.isArray(read)) throw mgetError ?? new Error('no MGET answer');
        answered = read as (string | null)[];
      }
      const previousRead = (previous: { read: number; key: string; perMinute: number }): number => {
        const count = Number(answered[previous.read] ?? 0);
        if (count <= previous.perMinute / 2 && kept.size < KEPT_PREVIOUS_MAX) kept.set(previous.key, count);
        return count;
      };
      counts = at.map(({ current, previous }) => ({
        current: Number(('incr' in current ? results[current.incr]?.[1] : answered[current.read]) ?? 0),
        previous: 'known' in previous ? previous.known : previousRead(previous),
      }));
      expireNewCounters(redis, keyed, costs, counts, window, ctx.state.log);
      values = readAt.map((i) => answered[i] ?? null);
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

function counterKey(scope: string, id: string): string {
  return `rl:${scope}:${id}:`;
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
