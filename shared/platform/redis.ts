import { Redis, type RedisOptions } from 'ioredis';
import { config } from './config.js';

/**
 * Two kinds of Redis connection, never mixed:
 * - `fail-fast` (API producers, the idempotency cache, health): no offline queue and one retry, so a
 *   Redis outage answers 503 at once instead of piling requests up;
 * - `blocking` (BullMQ workers and QueueEvents): retries forever, as BullMQ requires.
 */
export type RedisRole = 'fail-fast' | 'blocking';

export function redisOptions(role: RedisRole, url: string = config().redisUrl): RedisOptions {
  const u = new URL(url);
  const base: RedisOptions = {
    host: u.hostname,
    port: Number(u.port || 6379),
    db: Number(u.pathname.replace('/', '') || 0),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    connectTimeout: 5000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  };
  return role === 'fail-fast'
    ? { ...base, enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true }
    : { ...base, maxRetriesPerRequest: null, enableReadyCheck: false };
}

/**
 * Where the service's own keys live (rate-limit counters, idempotency cache, e-mail quotas): under the queue
 * prefix, so environments sharing a Redis database share neither queues nor counters. BullMQ refuses a
 * connection with a key prefix (it prefixes its own keys), so they use a connection of their own.
 */
export function serviceKeyPrefix(queuePrefix: string): string {
  return `${queuePrefix}:`;
}

/** A fail-fast connection, connected. Errors are reported by the caller's health checks, not thrown at random. */
export async function connectFailFast(url: string = config().redisUrl, options: { keyPrefix?: string } = {}): Promise<Redis> {
  const client = new Redis({ ...redisOptions('fail-fast', url), ...options });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}
