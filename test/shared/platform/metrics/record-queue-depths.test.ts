import { expect } from 'chai';
import { QUEUES } from '../../../../shared/platform/jobs.js';
import { recordQueueDepths } from '../../../../shared/platform/metrics/record-queue-depths.js';
import { registry } from '../../../../shared/platform/metrics/registry.js';
import { createProducers, type Producers } from '../../../../shared/platform/queues.js';
import { connectFailFast } from '../../../../shared/platform/redis.js';
import { harness } from '../../../helpers/harness.js';
import { parseMetrics, sampleValue } from '../../../helpers/metrics-text.js';

describe('recordQueueDepths', () => {
  // Queues of their own (no worker takes their jobs), so what waits is exactly what the test added.
  let producers: Producers;
  before(async () => {
    producers = await createProducers(harness().redis, harness().deps.config, `${harness().deps.config.queuePrefix}-depths`);
  });
  after(async () => {
    for (const name of Object.values(QUEUES)) await producers.queue(name).obliterate({ force: true });
    await producers.close();
  });

  it('sets the count per state and how long the oldest waiting job has been ready', async () => {
    await producers.add('render-qr', { qrs: [{ qrId: 'tra_a', content: 'x' }] });
    await producers.add('render-qr', { qrs: [{ qrId: 'tra_b', content: 'y' }] });
    await producers.add('expire-due-qrs', { dueAt: 1 }, { delay: 3_600_000 });
    const added = Date.now();

    await recordQueueDepths(producers, added + 60_000);
    const text = await registry.metrics();
    expect(sampleValue(text, 'autofactura_queue_jobs', { queue: QUEUES.render, state: 'waiting' })).to.equal(2);
    expect(sampleValue(text, 'autofactura_queue_jobs', { queue: QUEUES.expiry, state: 'delayed' })).to.equal(1);
    expect(sampleValue(text, 'autofactura_queue_jobs', { queue: QUEUES.expiry, state: 'waiting' })).to.equal(0);
    const oldest = sampleValue(text, 'autofactura_queue_oldest_waiting_seconds', { queue: QUEUES.render });
    expect(oldest).to.be.within(60, 65);
    expect(sampleValue(text, 'autofactura_queue_oldest_waiting_seconds', { queue: QUEUES.expiry })).to.equal(0); // a delayed job is not waiting yet
  });

  it('leaves the queue gauges out, rather than stale, when Redis does not answer', async () => {
    const redis = await connectFailFast(harness().deps.config.redisUrl);
    const cut = await createProducers(redis, harness().deps.config, `${harness().deps.config.queuePrefix}-depths`);
    await recordQueueDepths(producers);
    redis.disconnect();
    try {
      let failure: unknown;
      await recordQueueDepths(cut).catch((err: unknown) => (failure = err));
      expect(failure).to.be.instanceOf(Error);
      const names = parseMetrics(await registry.metrics()).map((s) => s.name);
      expect(names).to.not.include('autofactura_queue_jobs');
      expect(names).to.not.include('autofactura_queue_oldest_waiting_seconds');
    } finally {
      await cut.close().catch(() => undefined);
    }
  });
});
