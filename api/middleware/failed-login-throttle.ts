import type { RedisClient } from '../../shared/platform/redis.js';
import { AppError } from '../../shared/platform/errors.js';
import type { AppContext } from '../context.js';

/** One login attempt counted in advance as a failure; a login that turns out right gives it back. */
export interface ReservedAttempt {
  release(): Promise<void>;
}

export interface FailedLoginThrottle {
  /**
   * Counts the attempt as a failure before the password is checked; 429 with Retry-After when that
   * count goes past the limit of the client IP's current window.
   */
  reserve(ctx: Pick<AppContext, 'ip' | 'state'>): Promise<ReservedAttempt>;
}

/** Given back only while the window's key lives: an expired one must not come back as a key without a TTL. */
const RELEASE_SCRIPT = "if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('DECR', KEYS[1]) end return 0";

const NOTHING_RESERVED: ReservedAttempt = { release: () => Promise.resolve() };

/**
 * Counts only failed logins, in fixed windows in Redis (the `rl:` family of rate-limit.ts). Each attempt
 * is reserved (INCR, in the same MULTI as its EXPIRE) before the password is checked, so logins sent at
 * once cannot all be checked against the same count (issue #28): past the limit, the password is not
 * checked at all, so a locked-out client learns nothing from a right guess and costs no scrypt run. A
 * right login gives its reservation back: successful requests do not count (the dashboard polls its API).
 * If Redis cannot count, the login is still checked: the password stays the barrier.
 */
export function failedLoginThrottle(redis: RedisClient, scope: string, maxFailures: number, windowSeconds: number): FailedLoginThrottle {
  return {
    async reserve(ctx) {
      const nowSeconds = Math.floor(Date.now() / 1000);
      // The key is fixed here: a release that lands in the next window still gives back to this one.
      const key = `rl:${scope}:${ctx.ip}:${Math.floor(nowSeconds / windowSeconds)}`;
      let attempts: number;
      try {
        const results = await redis
          .multi()
          .incr(key)
          .expire(key, windowSeconds + 1)
          .exec();
        const [incrError, count] = results?.[0] ?? [new Error('transaction discarded'), undefined];
        if (incrError) throw incrError;
        attempts = Number(count);
      } catch (err) {
        ctx.state.log.warn({ err }, 'failed login not counted');
        return NOTHING_RESERVED;
      }
      if (attempts > maxFailures) {
        const retryAfter = windowSeconds - (nowSeconds % windowSeconds);
        throw new AppError(429, 'rate_limited', `Too many failed logins from this address; try again in ${retryAfter} s.`, {
          headers: { 'Retry-After': String(retryAfter) },
        });
      }
      return {
        async release() {
          try {
            await redis.eval(RELEASE_SCRIPT, 1, key);
          } catch (err) {
            ctx.state.log.warn({ err }, 'successful login not given back');
          }
        },
      };
    },
  };
}
