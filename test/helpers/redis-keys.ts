import type { Redis } from 'ioredis';
import { config } from '../../shared/platform/config.js';
import { serviceKeyPrefix } from '../../shared/platform/redis.js';

/**
 * Removes every key matching a pattern, e.g. `<prefix>:*` for all the queues of a prefix a test or bench
 * gave its own processes: the Redis is shared with everything else on the machine.
 */
export async function removeKeysMatching(redis: Redis, pattern: string): Promise<void> {
  for await (const keys of redis.scanStream({ match: pattern, count: 1000 }) as AsyncIterable<string[]>) {
    if (keys.length > 0) await redis.unlink(...keys);
  }
}

/** The service's own keys (rate limits, idempotency, e-mail quotas) matching `pattern`, as the raw connection names them. */
export async function serviceKeys(redis: Redis, pattern: string): Promise<string[]> {
  return redis.keys(serviceKeyPrefix(config().queuePrefix) + pattern);
}

/** Removes the service's own keys matching `pattern` (e.g. `rl:admin-login:*` to lift a test's lockout). */
export async function removeServiceKeys(redis: Redis, pattern: string): Promise<void> {
  await removeKeysMatching(redis, serviceKeyPrefix(config().queuePrefix) + pattern);
}
