import type { RedisClient } from '../redis.js';
import { runPrepared, type Db, type PreparedStatement } from '../db.js';
import { groupTag } from '../service-key-groups.js';

/**
 * Idempotency records: PostgreSQL is the truth, Redis a cache in front of it for replays. Losing Redis
 * loses nothing but speed. The table is partitioned by day and kept IDEMPOTENCY_RETENTION_DAYS; one record
 * per key across its days is the claim function's work (claim_idempotency_key, migration
 * 20261128200000): an advisory lock on the key, then a look, then the insert, so concurrent first requests
 * serialize and the later ones find the first's record.
 */
export interface IdempotencyRecord {
  fingerprint: string;
  resourceId: string;
}

export interface IdempotencyScope {
  merchantId: string;
  scope: string;
  key: string;
}

/**
 * Who a cached record is found by in Redis: the presented API key's id (a prefix of its SHA-256, no secret),
 * known before the key's principal, so that the cache is read in the access rule's own round trip. A replay
 * with another key of the same merchant misses the cache and is answered from PostgreSQL, the truth.
 */
export interface CacheScope {
  holder: string;
  scope: string;
  key: string;
}

/** Under the holder's group tag (shared/platform/service-key-groups.ts): read in one MGET with the holder's rate counters. */
export function cacheKeyOf(s: CacheScope): string {
  return `idem:${s.scope}:${s.holder}:${groupTag(s.holder)}${s.key}`;
}

/** A cached value (as read from Redis) as a record; undefined for none or a malformed one. */
export function parseCachedRecord(cached: string | null | undefined): IdempotencyRecord | undefined {
  if (!cached) return undefined;
  const [fingerprint, resourceId] = cached.split(' ');
  return fingerprint && resourceId ? { fingerprint, resourceId } : undefined;
}

export async function readCachedRecord(redis: RedisClient, s: CacheScope): Promise<IdempotencyRecord | undefined> {
  try {
    return parseCachedRecord(await redis.get(cacheKeyOf(s)));
  } catch {
    return undefined; // a cache outage falls through to PostgreSQL
  }
}

export async function cacheRecord(redis: RedisClient, s: CacheScope, record: IdempotencyRecord, ttlSeconds: number): Promise<void> {
  try {
    await redis.set(cacheKeyOf(s), `${record.fingerprint} ${record.resourceId}`, 'EX', ttlSeconds);
  } catch {
    // Best effort: PostgreSQL still answers the next replay.
  }
}

const FIND_RECORD: PreparedStatement = {
  name: 'idempotency_find_v2',
  // One per key by the claim; the oldest, should a day's partition ever hold a second.
  text: 'SELECT fingerprint, resource_id FROM idempotency_keys WHERE merchant_id = $1 AND scope = $2 AND key = $3 ORDER BY created_at LIMIT 1',
};

export async function findRecord(db: Db, s: IdempotencyScope): Promise<IdempotencyRecord | undefined> {
  const [row] = await runPrepared<{ fingerprint: string; resource_id: string }>(db, FIND_RECORD, [s.merchantId, s.scope, s.key]);
  return row ? { fingerprint: row.fingerprint, resourceId: row.resource_id } : undefined;
}

/**
 * The statement that claims a key ($1 merchant, $2 scope, $3 key, $4 fingerprint, $5 resource id), for
 * writers that claim it in the same statement as their resource: one row when claimed, none when taken.
 */
export const CLAIM_KEY_SQL = `SELECT resource_id FROM (SELECT claim_idempotency_key($1, $2, $3, $4, $5) AS resource_id) claimed WHERE resource_id IS NOT NULL`;
