import type { Redis } from 'ioredis';
import type { Db, Trx } from '../db.js';

/**
 * Idempotency records: PostgreSQL is the truth (a primary key on merchant, scope and key makes
 * concurrent first requests serialize), Redis a cache in front of it for replays. Losing Redis
 * loses nothing but speed.
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

function cacheKey(s: IdempotencyScope): string {
  return `idem:${s.scope}:${s.merchantId}:${s.key}`;
}

export async function readCachedRecord(redis: Redis, s: IdempotencyScope): Promise<IdempotencyRecord | undefined> {
  try {
    const cached = await redis.get(cacheKey(s));
    if (!cached) return undefined;
    const [fingerprint, resourceId] = cached.split(' ');
    return fingerprint && resourceId ? { fingerprint, resourceId } : undefined;
  } catch {
    return undefined; // a cache outage falls through to PostgreSQL
  }
}

export async function cacheRecord(redis: Redis, s: IdempotencyScope, record: IdempotencyRecord, ttlSeconds: number): Promise<void> {
  try {
    await redis.set(cacheKey(s), `${record.fingerprint} ${record.resourceId}`, 'EX', ttlSeconds);
  } catch {
    // Best effort: PostgreSQL still answers the next replay.
  }
}

export async function findRecord(db: Db | Trx, s: IdempotencyScope): Promise<IdempotencyRecord | undefined> {
  const row = (await db('idempotency_keys')
    .where({ merchant_id: s.merchantId, scope: s.scope, key: s.key })
    .first('fingerprint', 'resource_id')) as { fingerprint: string; resource_id: string } | undefined;
  return row ? { fingerprint: row.fingerprint, resourceId: row.resource_id } : undefined;
}

/**
 * Claims the key inside the caller's transaction. When another transaction holds the same key,
 * PostgreSQL makes this statement wait until that one commits or rolls back; then it returns
 * the winner's record (claimed=false) or claims the key itself.
 */
export async function claimKey(
  trx: Trx,
  s: IdempotencyScope,
  record: IdempotencyRecord,
): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRecord }> {
  const inserted = await trx('idempotency_keys')
    .insert({ merchant_id: s.merchantId, scope: s.scope, key: s.key, fingerprint: record.fingerprint, resource_id: record.resourceId })
    .onConflict(['merchant_id', 'scope', 'key'])
    .ignore()
    .returning('key');
  if (inserted.length > 0) return { claimed: true };
  const existing = await findRecord(trx, s);
  if (!existing) throw new Error('idempotency record vanished after a conflict');
  return { claimed: false, existing };
}
