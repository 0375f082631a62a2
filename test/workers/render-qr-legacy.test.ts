import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { legacyInboxKey, type InboxMessage } from '../../shared/platform/job-inbox.js';
import { QUEUES, type RenderQrResult } from '../../shared/platform/jobs.js';
import { queueEvents } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';

/**
 * A rolling deploy (issue #40): API processes from before the render lane still add BullMQ `render-qr` jobs
 * while the new workers run; the workers still render them and answer where those processes read.
 */
describe('render-qr jobs of API processes from before the render lane (a rolling deploy)', function () {
  this.timeout(30_000);

  it('a job naming an inbox that is a list (issue #30 to #40) gets its images in that list', async () => {
    const { producers } = harness();
    const inboxId = randomUUID();
    const id = `render.${randomUUID()}`;
    await producers.add('render-qr', { qrs: [{ qrId: id, content: 'https://factura.example.test/q?v=1' }], replyTo: inboxId }, { jobId: id });
    const reader = new Redis(harness().deps.config.redisUrl);
    try {
      const popped = await reader.blpop(legacyInboxKey(harness().deps.config.queuePrefix, inboxId), 20);
      const message = JSON.parse(popped![1]) as InboxMessage<RenderQrResult>;
      expect(message.jobId).to.equal(id);
      expect('result' in message && message.result.pngs[0]).to.match(/^iVBOR/);
    } finally {
      reader.disconnect();
    }
  });

  it('a job without an inbox (before issue #30) is answered in its result', async () => {
    const { producers } = harness();
    const id = `render.${randomUUID()}`;
    const events = await queueEvents(QUEUES.render);
    try {
      const job = await producers.add('render-qr', { qrs: [{ qrId: id, content: 'https://factura.example.test/q?v=1' }] }, { jobId: id });
      expect(((await job.waitUntilFinished(events)) as RenderQrResult).pngs[0]).to.match(/^iVBOR/);
    } finally {
      await events.close();
    }
  });
});
