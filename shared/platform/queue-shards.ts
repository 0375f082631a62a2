/** Redis Cluster's slots: a key's slot is CRC16 of its hash tag modulo this. */
export const CLUSTER_SLOTS = 16_384;

/**
 * The prefixes of a deployment's queue shards (QUEUE_SHARDS, issue #40). BullMQ's scripts touch many keys of
 * one queue at once, so a queue's keys share a hash tag; one tag for every queue put a deployment's whole
 * queue work on one Redis Cluster master. Each shard has its own tag, and its queues (all of QUEUES) live
 * under it.
 *
 * One shard is the prefix itself: `npm start` on one Redis is as it always was. With K shards, shard i's tag
 * is the prefix's tag with the first suffix `-n` whose slot falls in the i-th K-th of the 16,384 slots: a
 * cluster created with `redis-cli --cluster create` (or a managed one) gives each of its M masters one
 * contiguous, equal range of slots, so with K = M every shard has a master of its own, and with K a multiple
 * of M each master serves K / M shards. A tag hashed at random would leave that to chance (three tags on
 * three masters all land on different ones 2 times in 9). The search is deterministic: every process of a
 * deployment computes the same prefixes from QUEUE_PREFIX and QUEUE_SHARDS.
 */
export function shardPrefixes(prefix: string, shards: number): string[] {
  if (!Number.isInteger(shards) || shards < 1) throw new Error(`queue shards must be a positive integer, got ${shards}`);
  if (shards === 1) return [prefix];
  const tagged = /\{([^}]+)\}/.exec(prefix);
  // On one Redis the prefix has no tag; the same suffix names its shards (the slot then means nothing).
  const tag = tagged ? tagged[1]! : prefix;
  const withTag = (t: string) => (tagged ? prefix.replace(tagged[0], `{${t}}`) : t);
  return Array.from({ length: shards }, (_, i) => {
    for (let n = 0; ; n++) {
      const candidate = `${tag}-${n}`;
      if (Math.floor((calculateSlot(candidate) * shards) / CLUSTER_SLOTS) === i) return withTag(candidate);
    }
  });
}

/**
 * The shard of a job by its routing key (shared/platform/jobs.ts, shardKeyOf): FNV-1a over the key's UTF-16
 * units, modulo the shard count. Stable across processes and releases (a job looked up by its id must be
 * looked up where it was added); not CRC16, which would honour braces inside the key.
 */
export function shardOf(key: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}

/**
 * The shard of a render job and of its reply, by the job's id (shared/platform/render-lane.ts and job-inbox.ts):
 * the lane it waits on and the inbox stream its images come back to are on one shard, so on one master.
 */
export function shardPrefixOfId(id: string, shardPrefixes: readonly string[]): string {
  return shardPrefixes[shardOf(id, shardPrefixes.length)]!;
}

/** Redis Cluster's slot of a key: CRC16 (XMODEM) of its hash tag, the first non-empty `{…}`, or of the whole key. */
export function calculateSlot(key: string): number {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  const hashed = close > open + 1 ? key.slice(open + 1, close) : key;
  let crc = 0;
  for (const byte of Buffer.from(hashed, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % CLUSTER_SLOTS;
}
