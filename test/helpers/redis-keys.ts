import type { Redis } from 'ioredis';

/**
 * Removes every key matching a pattern, e.g. `<prefix>:*` for all the queues of a prefix a test or bench
 * gave its own processes: the Redis is shared with everything else on the machine.
 */
export async function removeKeysMatching(redis: Redis, pattern: string): Promise<void> {
  for await (const keys of redis.scanStream({ match: pattern, count: 1000 }) as AsyncIterable<string[]>) {
    if (keys.length > 0) await redis.unlink(...keys);
  }
}
