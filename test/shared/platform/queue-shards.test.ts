import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { loadConfig } from '../../../shared/platform/config.js';
import { jobId } from '../../../shared/platform/jobs.js';
import { calculateSlot, CLUSTER_SLOTS, shardOf, shardPrefixes } from '../../../shared/platform/queue-shards.js';
import { shardOfJob } from '../../../shared/platform/queues.js';

describe('issue #40: queue shards (QUEUE_SHARDS)', () => {
  const env = { NODE_ENV: 'test' };

  it('one shard by default: the queues under QUEUE_PREFIX itself, as on one Redis before (WORKER_SHARDS: every shard)', () => {
    const cfg = loadConfig({ ...env, QUEUE_PREFIX: 'af' });
    expect(cfg.queueShards).to.equal(1);
    expect(cfg.workerShards).to.deep.equal([]);
    expect(shardPrefixes(cfg.queuePrefix, cfg.queueShards)).to.deep.equal(['af']);
    expect(shardPrefixes('{af}', 1)).to.deep.equal(['{af}']);
  });

  it('WORKER_SHARDS names shards of QUEUE_SHARDS only', () => {
    expect(loadConfig({ ...env, QUEUE_SHARDS: '3', WORKER_SHARDS: '0, 2' }).workerShards).to.deep.equal([0, 2]);
    expect(() => loadConfig({ ...env, QUEUE_SHARDS: '3', WORKER_SHARDS: '3' })).to.throw('config: WORKER_SHARDS names shard 3, but QUEUE_SHARDS=3');
    expect(() => loadConfig({ ...env, WORKER_SHARDS: 'one' })).to.throw('config: WORKER_SHARDS entries must be shard numbers');
  });

  it("computes Redis Cluster's slots as CLUSTER KEYSLOT does (CRC16, the hash tag)", () => {
    // Values from the Redis Cluster specification and `CLUSTER KEYSLOT`.
    expect(calculateSlot('123456789')).to.equal(12739);
    expect(calculateSlot('foo')).to.equal(12182);
    expect(calculateSlot('{foo}bar')).to.equal(12182);
    expect(calculateSlot('somekey')).to.equal(11058);
  });

  it("gives each of K shards a tag whose slot lies in its own K-th of the slots: one master each on a cluster of K masters' even split", () => {
    for (const k of [2, 3, 4, 6]) {
      const prefixes = shardPrefixes('{af}', k);
      expect(new Set(prefixes).size).to.equal(k);
      prefixes.forEach((prefix, i) => expect(Math.floor((calculateSlot(prefix) * k) / CLUSTER_SLOTS), `${prefix} of ${k}`).to.equal(i));
    }
    // Fixed for good: every process of a deployment, in every release, must name the same shards.
    expect(shardPrefixes('{af}', 3)).to.deep.equal(['{af-0}', '{af-2}', '{af-3}']);
    expect(shardPrefixes('prod-{af}', 3)).to.deep.equal(['prod-{af-0}', 'prod-{af-2}', 'prod-{af-3}']);
    expect(shardPrefixes('af', 3)).to.deep.equal(['af-0', 'af-2', 'af-3']);
  });

  it('picks a job its shard by a stable hash of its key, spread evenly', () => {
    expect([shardOf('stamp.abc', 3), shardOf('render.x', 3), shardOf('', 3)]).to.deep.equal([2, 1, 1]);
    const counts = [0, 0, 0];
    for (let i = 0; i < 30_000; i++) counts[shardOf(jobId.stampInvoice(randomUUID()), 3)]!++;
    for (const n of counts) expect(n / 30_000).to.be.within(0.31, 0.356);
  });

  it("a job's shard follows from what identifies it: its id, the key it is deduplicated by; the scheduled ones on shard 0", () => {
    const invoiceId = randomUUID();
    expect(shardOfJob('stamp-invoice', { invoiceId }, 3)).to.equal(shardOf(jobId.stampInvoice(invoiceId), 3));
    // The buyer's e-mail and a copy to another address (no id) on the same shard.
    expect(shardOfJob('email-invoice', { invoiceId, to: 'x@example.test' }, 3)).to.equal(shardOfJob('email-invoice', { invoiceId }, 3));
    const render = {
      qrs: [
        { qrId: 'tx_1', content: 'x' },
        { qrId: 'tx_2', content: 'y' },
      ],
    };
    expect(shardOfJob('render-qr', render, 3)).to.equal(shardOf(jobId.renderQr('tx_1'), 3));
    expect(shardOfJob('sync-issuer', { issuerId: 'iss_1' }, 3)).to.equal(shardOf(jobId.syncIssuer('iss_1'), 3));
    for (const name of ['sweep-stamping', 'plan-expiries', 'dispatch-webhooks', 'keep-partitions'] as const) expect(shardOfJob(name, {}, 3)).to.equal(0);
    expect(shardOfJob('settle-offline-claims', {}, 3)).to.equal(0);
    expect(shardOfJob('settle-offline-claims', { transactionId: 'tx_9' }, 3)).to.equal(shardOf(jobId.settleOfflineClaimsOf('tx_9'), 3));
    // Jobs of many sales spread over every shard.
    const shards = new Set(Array.from({ length: 50 }, () => shardOfJob('stamp-invoice', { invoiceId: randomUUID() }, 3)));
    expect([...shards].sort()).to.deep.equal([0, 1, 2]);
  });
});
