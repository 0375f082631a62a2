import type { Middleware } from 'koa';
import type { Redis } from 'ioredis';
import { AppError } from '../../shared/errors.js';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';

export interface RateLimit {
  /** Counter family, e.g. `ip` or `qr`. */
  scope: string;
  perMinute: number;
  /** Who is counted; undefined skips this limit for the request. */
  key(ctx: Parameters<Middleware<AppState>>[0]): string | undefined;
}

/**
 * Fixed one-minute windows counted in Redis (shared by every API process). Over a limit: 429 with
 * Retry-After. If Redis cannot count, the request goes through: the buyer is not blocked by our outage.
 */
export function rateLimit(redis: Redis, limits: RateLimit[]): Middleware<AppState> {
  return async (ctx, next) => {
    const window = Math.floor(Date.now() / 60_000);
    const keyed = limits.map((l) => ({ limit: l, id: l.key(ctx) })).filter((x): x is { limit: RateLimit; id: string } => x.id !== undefined);
    let counts: number[] = [];
    try {
      const pipeline = redis.pipeline();
      for (const { limit, id } of keyed) pipeline.incr(`rl:${limit.scope}:${id}:${window}`).expire(`rl:${limit.scope}:${id}:${window}`, 61);
      const results = (await pipeline.exec()) ?? [];
      counts = keyed.map((_, i) => Number(results[i * 2]?.[1] ?? 0));
    } catch (err) {
      ctx.state.log.warn({ err }, 'rate limit not counted');
    }
    const over = keyed.findIndex(({ limit }, i) => (counts[i] ?? 0) > limit.perMinute);
    if (over >= 0) {
      const retryAfter = 60 - Math.floor((Date.now() / 1000) % 60);
      throw new AppError(429, 'rate_limited', `Too many requests (${keyed[over]!.limit.perMinute} per minute per ${keyed[over]!.limit.scope}); try again in ${retryAfter} s.`, {
        headers: { 'Retry-After': String(retryAfter) },
      });
    }
    await next();
  };
}

/** Short-code lookups (page and API share the counter): few per IP, since codes are found by guessing. */
export function shortCodeRateLimit(deps: Pick<ApiDeps, 'redis' | 'config'>): Middleware<AppState> {
  return rateLimit(deps.redis, [{ scope: 'code-ip', perMinute: deps.config.publicCodeRatePerIp, key: (ctx) => ctx.ip }]);
}
