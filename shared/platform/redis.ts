import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import type { ConnectionOptions } from 'bullmq';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { config, type Config } from './config.js';

/**
 * Two kinds of Redis connection, never mixed:
 * - `fail-fast` (API producers, the idempotency cache, health): no offline queue and one retry, so a
 *   Redis outage answers 503 at once instead of piling requests up;
 * - `blocking` (BullMQ workers and QueueEvents): retries forever, as BullMQ requires.
 */
export type RedisRole = 'fail-fast' | 'blocking';

/** A fail-fast command's longest wait (a Lua add, a pipeline of counters: normally under a millisecond). */
const FAIL_FAST_COMMAND_TIMEOUT_MS = 5000;

/** One Redis server or a Redis Cluster: the service's code uses the commands both answer. */
export type RedisClient = Redis | Cluster;

/** Where Redis is: the settings every connection is made from. A bare URL is one server, no CA file. */
export type RedisSettings = Pick<Config, 'redisUrl' | 'redisClusterNodes' | 'redisSentinels' | 'redisSentinelName' | 'redisSkipVersionCheck' | 'redisTlsCaFile'>;

export function redisSettingsOf(target: RedisSettings | string): RedisSettings {
  return typeof target === 'string'
    ? { redisUrl: target, redisClusterNodes: [], redisSentinels: [], redisSentinelName: 'mymaster', redisSkipVersionCheck: false, redisTlsCaFile: '' }
    : target;
}

const caFiles = new Map<string, Buffer>();

/** The CA file is read once per process (at the first connection, at start), not at every reconnect. */
function tlsOptions(url: URL, caFile: string): TlsOptions | undefined {
  if (url.protocol !== 'rediss:') return undefined;
  if (caFile && !caFiles.has(caFile)) caFiles.set(caFile, readFileSync(caFile));
  const ca = caFile ? caFiles.get(caFile) : undefined;
  // SNI takes a host name only; a certificate for an IP address is checked against its IP SAN all the same.
  return { ...(ca ? { ca } : {}), ...(isIP(url.hostname) ? {} : { servername: url.hostname }) };
}

/** Options of one connection to one server: role, credentials and TLS from the URL (on a cluster, for every node). */
export function redisOptions(role: RedisRole, target: RedisSettings | string = config()): RedisOptions & { skipVersionCheck?: boolean } {
  const settings = redisSettingsOf(target);
  const u = new URL(settings.redisUrl);
  const tls = tlsOptions(u, settings.redisTlsCaFile);
  const base: RedisOptions & { skipVersionCheck?: boolean } = {
    host: u.hostname,
    port: Number(u.port || 6379),
    db: Number(u.pathname.replace('/', '') || 0),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(tls ? { tls } : {}),
    // With Sentinels the host and port above are not used: the Sentinels name the master, on every (re)connect.
    ...(settings.redisSentinels.length > 0 ? { sentinels: settings.redisSentinels, name: settings.redisSentinelName } : {}),
    // ioredis' ready check and BullMQ's version check both send INFO; BullMQ reads its flag from these options.
    ...(settings.redisSkipVersionCheck ? { enableReadyCheck: false, skipVersionCheck: true } : {}),
    connectTimeout: 5000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  };
  return role === 'fail-fast'
    ? // commandTimeout: on a cluster a command can wait out a failover in the client's retries; an API request
      // answers 503 after it rather than hang.
      { ...base, enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true, commandTimeout: FAIL_FAST_COMMAND_TIMEOUT_MS }
    : { ...base, maxRetriesPerRequest: null, enableReadyCheck: false };
}

/**
 * The one place that decides between one server and a cluster: every connection of the service is made here.
 * On a cluster the seed nodes come from REDIS_CLUSTER_NODES and the rest (credentials, TLS, role) from the
 * URL; the cluster client finds the other nodes, and follows a failover, by itself.
 */
export function redisClient(role: RedisRole, target: RedisSettings | string = config(), extra: ClientExtras = {}): RedisClient {
  const settings = redisSettingsOf(target);
  const { once, ...own } = extra;
  const { host: _host, port: _port, db: _db, retryStrategy, enableOfflineQueue, lazyConnect: _lazy, ...perNode } = redisOptions(role, settings);
  const retry = once ? () => null : retryStrategy;
  if (settings.redisClusterNodes.length === 0) return new Redis({ ...redisOptions(role, settings), retryStrategy: retry, ...own });
  // Each node is checked against its own name: REDIS_URL's host, which a cluster does not use, names none of them.
  const { servername: _urlHost, ...nodeTls } = perNode.tls ?? {};
  const options: ClusterOptions = {
    redisOptions: perNode.tls ? { ...perNode, tls: nodeTls } : perNode,
    clusterRetryStrategy: retry,
    ...(enableOfflineQueue === false ? { enableOfflineQueue: false } : {}),
    // The cluster's ready check (CLUSTER INFO) fails while a failover is under way and then reconnects
    // anew, leaving the promise of the connect() it answered pending for good: BullMQ awaits that promise
    // when it reconnects a worker's blocking connection, and the worker stopped taking jobs. BullMQ's own
    // connections go without it; their commands wait out the failover in the client's retries.
    ...(role === 'blocking' ? { enableReadyCheck: false } : {}),
    // ElastiCache-style TLS clusters announce host names their certificate names: resolving them here would
    // check the certificate against an IP address instead.
    ...(perNode.tls ? { dnsLookup: (address: string, callback: (err: null, address: string) => void) => callback(null, address) } : {}),
    ...own,
  };
  return new Cluster(settings.redisClusterNodes, options);
}

interface ClientExtras {
  keyPrefix?: string;
  lazyConnect?: boolean;
  /** One try and no reconnection (a startup check). */
  once?: boolean;
}

/**
 * BullMQ's connection. One server: options, and BullMQ opens (and closes) its connections from them. A cluster:
 * a client that never connects itself, a template that BullMQ's Workers and QueueEvents duplicate into the
 * connections they own (BullMQ takes no cluster options, only a cluster client).
 */
export function bullmqConnection(target: RedisSettings | string = config()): ConnectionOptions {
  const settings = redisSettingsOf(target);
  if (settings.redisClusterNodes.length === 0) return redisOptions('blocking', settings) as ConnectionOptions;
  return redisClient('blocking', settings, { lazyConnect: true });
}

/**
 * Where the service's own keys live (rate-limit counters, idempotency cache, e-mail quotas): under the queue
 * prefix, so environments sharing a Redis database share neither queues nor counters. BullMQ refuses a
 * connection with a key prefix (it prefixes its own keys), so they use a connection of their own. The prefix's
 * hash tag, if any, is dropped (`{af}` gives `af:`, as on one Redis): on a cluster each service key hashes on
 * its own name, or on its holder's group tag where one round trip reads several (shared/platform/service-key-groups.ts,
 * issue #40), instead of every key of every request on the prefix's one master.
 */
export function serviceKeyPrefix(queuePrefix: string): string {
  return `${queuePrefix.replace(/[{}]/g, '')}:`;
}

/** A fail-fast connection, connected. Errors are reported by the caller's health checks, not thrown at random. */
export async function connectFailFast(target: RedisSettings | string = config(), options: { keyPrefix?: string } = {}): Promise<RedisClient> {
  const client = redisClient('fail-fast', target, { ...options, lazyConnect: true });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}
