import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import type { Logger } from './logger.js';
import type { RedisClient } from './redis.js';
import { allGroupTags, groupTag } from './service-key-groups.js';

/**
 * The generation of every API key's principal (what `findApiKeyPrincipal` reads: the key, its merchant, the
 * merchant's issuer and CSD), one value in Redis under the service key prefix, kept in a copy per key group
 * (shared/platform/service-key-groups.ts, issue #40): a request reads its key's group's copy in one MGET with
 * the key's rate counters, so no single key is read by every request (on a cluster, one hot master). Each API process caches
 * principals under the generation it read in the request's own rate-limit round trip
 * (`api/access/principal-cache.ts`) and uses an entry only while Redis still holds that value; whoever changes
 * what a principal is made of sets a new value after its commit, so every process's entries die at its next
 * request, with no round trip of their own.
 *
 * A random value, not a counter: after Redis loses the key (restart, FLUSHALL, failover) a counter would start
 * again at 1 and could meet an entry cached under an earlier 1.
 */
export function principalGenerationKey(presentedKeyId: string): string {
  return generationKeyOf(groupTag(presentedKeyId));
}

function generationKeyOf(tag: string): string {
  return `apikey-gen:${tag}`;
}

const ATTEMPTS = 3;
const RETRY_MS = 100;

/**
 * After the commit of a change to an API key, a merchant, an issuer's name, RFC or periodicity, or a CSD: every
 * API process's cached principals die now. Never throws (the change is committed); when Redis cannot be told
 * after three attempts, it logs an error and the cached principals live at most their max age.
 */
export async function principalsChanged(redis: RedisClient, log: Pick<Logger, 'error'>): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await setEveryCopy(redis, randomUUID());
      return;
    } catch (err) {
      if (attempt >= ATTEMPTS) {
        log.error({ err }, 'cached API key principals not invalidated: they live until their max age');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS * attempt));
    }
  }
}

/**
 * Every group's copy set to one new value: one MSET on one Redis; on a cluster, where the copies are on every
 * master, one SET each, at once (a change of a principal is rare: 60 commands then, none per request).
 */
async function setEveryCopy(redis: RedisClient, generation: string): Promise<void> {
  const keys = allGroupTags().map(generationKeyOf);
  if (redis instanceof Cluster) await Promise.all(keys.map((key) => redis.set(key, generation)));
  else await redis.mset(...keys.flatMap((key) => [key, generation]));
}

/** Redis held no generation for this key's group (first start, or the key was lost): give it one, unless a writer was first. Best effort. */
export async function startPrincipalGeneration(redis: RedisClient, presentedKeyId: string): Promise<void> {
  try {
    await redis.set(principalGenerationKey(presentedKeyId), randomUUID(), 'NX');
  } catch {
    // The next request tries again; until then principals are read from PostgreSQL.
  }
}
