import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { cacheKeyOf } from '../../../shared/platform/idempotency/idempotency-store.js';
import { inboxKey } from '../../../shared/platform/job-inbox.js';
import { principalGenerationKey } from '../../../shared/platform/principal-generation.js';
import { calculateSlot, CLUSTER_SLOTS, shardPrefixes, shardPrefixOfId } from '../../../shared/platform/queue-shards.js';
import { serviceKeyPrefix } from '../../../shared/platform/redis.js';
import { laneOf, renderLaneKey } from '../../../shared/platform/render-lane.js';
import { allGroupTags, groupOf, groupTag, KEY_GROUPS } from '../../../shared/platform/service-key-groups.js';

/** The master of `slot` on a cluster of `masters` whose slots are split evenly (redis-cli --cluster create). */
const masterOf = (slot: number, masters: number) => Math.floor((slot * masters) / CLUSTER_SLOTS);

/**
 * Issue #40: the service's own keys and the render hand-off spread over a cluster's masters. On one shared tag
 * every request's counters, cache and generation, every render lane job and every reply sat on one master.
 */
describe('issue #40: service keys, render lanes and inboxes spread over a Redis Cluster', () => {
  it("the service keys' prefix drops the queue prefix's hash tag: each key hashes on its own, as on one Redis", () => {
    expect(serviceKeyPrefix('{af}')).to.equal('af:');
    expect(serviceKeyPrefix('af')).to.equal('af:');
    expect(calculateSlot(`${serviceKeyPrefix('{af}')}rl:admin-login:10.0.0.1:1`)).to.not.equal(calculateSlot('{af}'));
  });

  it('gives each of 60 key groups a tag in its own 60th of the slots: each master of an even split serves as many', () => {
    const tags = allGroupTags();
    expect(new Set(tags).size).to.equal(KEY_GROUPS);
    tags.forEach((tag, i) => expect(Math.floor((calculateSlot(tag) * KEY_GROUPS) / CLUSTER_SLOTS), tag).to.equal(i));
    for (const masters of [2, 3, 4, 5, 6]) {
      const perMaster = new Array<number>(masters).fill(0);
      for (const tag of tags) perMaster[masterOf(calculateSlot(tag), masters)]! += 1;
      expect(perMaster, `${masters} masters`).to.deep.equal(new Array<number>(masters).fill(KEY_GROUPS / masters));
    }
  });

  it("an API key's counters, its idempotency cache entries and its group's principal generation share one slot; keys spread evenly", () => {
    const keyId = 'Xq3pV9mZ0aBcDeFgHiJkLm';
    const slot = calculateSlot(groupTag(keyId));
    const prefix = serviceKeyPrefix('{af}');
    expect(calculateSlot(prefix + principalGenerationKey(keyId))).to.equal(slot);
    expect(calculateSlot(prefix + cacheKeyOf({ scope: 'qrs', holder: keyId, key: randomUUID() }))).to.equal(slot);
    const counts = new Array<number>(3).fill(0);
    for (let i = 0; i < 30_000; i++) counts[masterOf(calculateSlot(groupTag(randomUUID())), 3)]! += 1;
    for (const n of counts) expect(n / 30_000).to.be.within(0.31, 0.356);
    expect(groupOf(keyId)).to.equal(groupOf(keyId));
  });

  it("one render lane per queue shard, under the shard's tag; a job's lane by its id, spread evenly", () => {
    expect(renderLaneKey('af')).to.equal('af:render-lane');
    const prefixes = shardPrefixes('{af}', 3);
    expect(laneOf({ id: 'render.tx_1' }, ['af'])).to.equal('af:render-lane');
    const counts = new Map<string, number>();
    for (let i = 0; i < 30_000; i++) {
      const lane = laneOf({ id: `render.tx_${randomUUID()}` }, prefixes);
      counts.set(lane, (counts.get(lane) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).to.deep.equal(prefixes.map(renderLaneKey).sort());
    for (const [lane, n] of counts) expect(n / 30_000, lane).to.be.within(0.31, 0.356);
    // Each lane on its shard's master.
    prefixes.forEach((p, i) => expect(masterOf(calculateSlot(renderLaneKey(p)), 3)).to.equal(i));
  });

  it("an inbox has a stream on each shard, in the slot of that shard's render lane; on one Redis it keeps its name", () => {
    const id = randomUUID();
    expect(inboxKey('af', id)).to.equal(`af:replies:${id}`);
    const prefixes = shardPrefixes('{af}', 3);
    for (const p of prefixes) expect(calculateSlot(inboxKey(p, id))).to.equal(calculateSlot(renderLaneKey(p)));
    // A render job and its reply go to one shard: the one its id picks.
    for (let i = 0; i < 100; i++) {
      const jobId = `render.tx_${randomUUID()}`;
      expect(renderLaneKey(shardPrefixOfId(jobId, prefixes))).to.equal(laneOf({ id: jobId }, prefixes));
    }
  });
});
