import type { Redis } from 'ioredis';

/**
 * Removes every key under a queue prefix a test gave its own processes or producers (all their queues,
 * not only the one it used): the Redis is shared with everything else on the machine.
 */
export async function removeQueueKeys(redis: Redis, prefix: string): Promise<void> {
  for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 1000 }) as AsyncIterable<string[]>) {
    if (keys.length > 0) await redis.unlink(...keys);
  }
}
