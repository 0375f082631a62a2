import type { Redis } from 'ioredis';
import { AppError } from '../../shared/platform/errors.js';
import type { AppContext } from '../context.js';

export interface FailedLoginThrottle {
  /** 429 with Retry-After once the client IP used up its failures in the current window. */
  assertAllowed(ctx: Pick<AppContext, 'ip' | 'state'>): Promise<void>;
  recordFailure(ctx: Pick<AppContext, 'ip' | 'state'>): Promise<void>;
}

/**
 * Counts only failed logins, in fixed windows in Redis (the `rl:` family of rate-limit.ts), and is
 * checked before the password is: a locked-out client learns nothing from a right guess and costs no
 * scrypt run. Unlike rateLimit, successful requests are not counted (the dashboard polls its API).
 * If Redis cannot count, the login is still checked: the password stays the barrier.
 */
export function failedLoginThrottle(redis: Redis, scope: string, maxFailures: number, windowSeconds: number): FailedLoginThrottle {
  const windowStart = () => Math.floor(Date.now() / 1000 / windowSeconds);
  const keyOf = (ip: string) => `rl:${scope}:${ip}:${windowStart()}`;
  return {
    async assertAllowed(ctx) {
      let failures = 0;
      try {
        failures = Number((await redis.get(keyOf(ctx.ip))) ?? 0);
      } catch (err) {
        ctx.state.log.warn({ err }, 'failed logins not read');
      }
      if (failures < maxFailures) return;
      const retryAfter = windowSeconds - (Math.floor(Date.now() / 1000) % windowSeconds);
      throw new AppError(429, 'rate_limited', `Too many failed logins from this address; try again in ${retryAfter} s.`, {
        headers: { 'Retry-After': String(retryAfter) },
      });
    },
    async recordFailure(ctx) {
      const key = keyOf(ctx.ip);
      try {
        await redis
          .multi()
          .incr(key)
          .expire(key, windowSeconds + 1)
          .exec();
      } catch (err) {
        ctx.state.log.warn({ err }, 'failed login not counted');
      }
    },
  };
}
