import { Cluster, type Redis } from 'ioredis';
import { config } from '../../shared/platform/config.js';
import { serviceKeyPrefix, type RedisClient } from '../../shared/platform/redis.js';

/** The servers holding keys: the one server, or every master of a cluster (each has its own slots). */
function keyHolders(redis: RedisClient): Redis[] {
  return redis instanceof Cluster ? redis.nodes('master') : [redis];
}

/**
 * Removes every key matching a pattern, e.g. `<prefix>:*` for all the queues of a prefix a test or bench
 * gave its own processes: the Redis is shared with everything else on the machine.
 */
export async function removeKeysMatching(redis: RedisClient, pattern: string): Promise<void> {
  for (const node of keyHolders(redis)) {
    for await (const keys of node.scanStream({ match: pattern, count: 1000 }) as AsyncIterable<string[]>) {
      if (keys.length === 0) continue;
      // On a cluster the keys of one node may still be in different slots: one key per command there.
      if (redis instanceof Cluster) await Promise.all(keys.map((k) => node.unlink(k)));
      else await node.unlink(...keys);
    }
  }
}

/** Every key matching `pattern`, on every server holding keys. */
export async function keysMatching(redis: RedisClient, pattern: string): Promise<string[]> {
  const found = await Promise.all(keyHolders(redis).map((node) => node.keys(pattern)));
  return found.flat();
}

/** The service's own keys (rate limits, idempotency, e-mail quotas) matching `pattern`, as the raw connection names them. */
export function serviceKeys(redis: RedisClient, pattern: string): Promise<string[]> {
  return keysMatching(redis, serviceKeyPrefix(config().queuePrefix) + pattern);
}

/** Removes the service's own keys matching `pattern` (e.g. `rl:admin-login:*` to lift a test's lockout). */
export async function removeServiceKeys(redis: RedisClient, pattern: string): Promise<void> {
  await removeKeysMatching(redis, serviceKeyPrefix(config().queuePrefix) + pattern);
}
