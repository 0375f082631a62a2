import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { QUEUES, type RenderQrResult } from '../../../shared/platform/jobs.js';
import { JobTimeout, watchJobResult } from '../../../shared/platform/queues.js';
import { queueEvents } from '../../helpers/buyer.js';
import { harness } from '../../helpers/harness.js';
import { rejection } from '../../helpers/rejection.js';

const imagesOfJob = (value: unknown) => (value as Partial<RenderQrResult> | null)?.pngs && (value as RenderQrResult);

describe("waiting for a render job's result (issues #19, #30: no request waits for a result it missed)", function () {
  this.timeout(30_000);

  it("a watch started before the add gets the result from this process's inbox, however fast the worker is", async () => {
    const { producers } = harness();
    const id = `render.${randomUUID()}`;
    const watch = watchJobResult<RenderQrResult>(producers.inbox, producers.queue(QUEUES.render), id, 10_000);
    await producers.add('render-qr', { qrs: [{ qrId: id, content: 'https://factura.example.test/q?v=1' }], replyTo: producers.inbox.id }, { jobId: id });
    expect((await watch.result).pngs[0]).to.match(/^iVBOR/);
  });

  it('a job from an API process older than the inbox (no replyTo) is answered in its result, read at the timeout', async () => {
    const { producers } = harness();
    const id = `render.${randomUUID()}`;
    const events = await queueEvents(QUEUES.render);
    try {
      const job = await producers.add('render-qr', { qrs: [{ qrId: id, content: 'https://factura.example.test/q?v=1' }] }, { jobId: id });
      expect(((await job.waitUntilFinished(events)) as RenderQrResult).pngs[0]).to.match(/^iVBOR/);
    } finally {
      await events.close();
    }
    // No reply came to any inbox: only the last look at the timeout can find the result.
    const late = watchJobResult<RenderQrResult>(producers.inbox, producers.queue(QUEUES.render), id, 100, imagesOfJob);
    expect((await late.result).pngs[0]).to.match(/^iVBOR/);
    const never = watchJobResult<RenderQrResult>(producers.inbox, producers.queue(QUEUES.render), `render.${randomUUID()}`, 100, imagesOfJob);
    await rejection(never.result, JobTimeout);
  });
});
