import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { QUEUES, type RenderQrResult } from '../../../shared/platform/jobs.js';
import { JobTimeout, watchJobResult } from '../../../shared/platform/queues.js';
import { queueEvents } from '../../helpers/buyer.js';
import { harness } from '../../helpers/harness.js';
import { rejection } from '../../helpers/rejection.js';

describe("waiting for a render job's result (issue #19: no request waits for a completion it missed)", function () {
  this.timeout(30_000);

  it('a watch started before the add gets the result, however fast the worker is', async () => {
    const { producers } = harness();
    const id = `render.${randomUUID()}`;
    const watch = watchJobResult<RenderQrResult>(producers.renderEvents, producers.queue(QUEUES.render), id, 10_000);
    await producers.add('render-qr', { qrs: [{ qrId: id, content: 'https://factura.example.test/q?v=1' }] }, { jobId: id, removeOnComplete: { age: 10 } });
    expect((await watch.result).pngs[0]).to.match(/^iVBOR/);
  });

  it('a result whose event was missed is read back from the job at the timeout, while the job is kept', async () => {
    const { producers } = harness();
    const id = `render.${randomUUID()}`;
    const events = await queueEvents(QUEUES.render);
    try {
      const job = await producers.add('render-qr', { qrs: [{ qrId: id, content: 'https://factura.example.test/q?v=1' }] }, { jobId: id, removeOnComplete: { age: 10 } });
      await job.waitUntilFinished(events);
    } finally {
      await events.close();
    }
    // The completion event is long gone: only the last look at the timeout can find the result.
    const late = watchJobResult<RenderQrResult>(producers.renderEvents, producers.queue(QUEUES.render), id, 100);
    expect((await late.result).pngs[0]).to.match(/^iVBOR/);
    const never = watchJobResult<RenderQrResult>(producers.renderEvents, producers.queue(QUEUES.render), `render.${randomUUID()}`, 100);
    await rejection(never.result, JobTimeout);
  });
});
