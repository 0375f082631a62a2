import { Cluster } from 'ioredis';
import { calculateSlot, CLUSTER_SLOTS } from './queue-shards.js';
import type { RedisClient } from './redis.js';

/**
 * The service's own keys spread over a Redis Cluster by who they belong to (issue #40). They used to share the
 * queue prefix's hash tag, so the rate counters, the idempotency cache and the principal generation of every
 * request ran on one master. Now each key hashes on its own, except where one round trip reads several keys of
 * one holder (an API key's counters, its idempotency cache entries and the principal generation): those carry
 * their holder's group tag, so one MGET still reads them. A holder's group is fixed by its id (FNV-1a, as a job's
 * shard), and the groups' tags are chosen, as the queue shards' are, so that group i's slot lies in the i-th
 * GROUPS-th of the slot range: a cluster whose M masters split the slots evenly gives each about GROUPS / M
 * groups (exactly, when M divides 60: 1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30 or 60 masters).
 *
 * On one Redis the tags mean nothing and cost nothing: the same names are used, so one code path and its tests
 * cover both.
 */
export const KEY_GROUPS = 60;

let tags: string[] | undefined;

/** Group i's tag, `{sg<n>}`, the first whose slot is in the i-th GROUPS-th of the slots. Computed once. */
function groupTags(): string[] {
  if (!tags) {
    tags = Array.from({ length: KEY_GROUPS }, (_, i) => {
      for (let n = 0; ; n++) {
        const candidate = `sg${n}`;
        if (Math.floor((calculateSlot(candidate) * KEY_GROUPS) / CLUSTER_SLOTS) === i) return `{${candidate}}`;
      }
    });
  }
  return tags;
}

/** FNV-1a over the id's UTF-16 units, modulo KEY_GROUPS (stable across processes and releases). */
export function groupOf(holder: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < holder.length; i++) {
    hash ^= holder.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % KEY_GROUPS;
}

/** The hash tag of `holder`'s keys: the keys of one holder read in one command carry it. */
export function groupTag(holder: string): string {
  return groupTags()[groupOf(holder)]!;
}

/** Every group's tag: what a value each group keeps a copy of (the principal generation) is written under. */
export function allGroupTags(): readonly string[] {
  return groupTags();
}

/**
 * Commands of one round trip, split by the slot their keys hash to (keyPrefix included) on a cluster, where a
 * multi-key command must stay within one slot; on one Redis, one group. Each group is sent as a pipeline of its
 * own, all at once: one round trip's wait, as before.
 */
export function groupBySlot<T>(redis: RedisClient, items: readonly T[], keyOf: (item: T) => string): T[][] {
  if (!(redis instanceof Cluster)) return items.length > 0 ? [[...items]] : [];
  const prefix = redis.options.keyPrefix ?? '';
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const slot = calculateSlot(prefix + keyOf(item));
    const group = groups.get(slot);
    if (group) group.push(item);
    else groups.set(slot, [item]);
  }
  return [...groups.values()];
}
