import type { Server } from 'node:http';
import { expect } from 'chai';
import { pino } from 'pino';
import { createApp } from '../../api/app.js';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { createProducers, type Producers } from '../../shared/platform/queues.js';
import { RenderLaneConsumer } from '../../shared/platform/render-lane.js';
import { renderLaneJob } from '../../workers/render-qr.js';
import { decodeQrPng } from '../helpers/decode-qr.js';
import { harness } from '../helpers/harness.js';
import { qrBody, qrHeaders } from '../helpers/qr-body.js';
import { removeKeysMatching } from '../helpers/redis-keys.js';

describe('POST /v1/qrs renders the QRs of requests arriving together in shared jobs (issue #19)', function () {
  this.timeout(60_000);
  const prefix = `batches${process.pid}`;
  let account: BootstrapResult;
  let producers: Producers;
  let server: Server;
  let url: string;
  let consumer: RenderLaneConsumer;
  /** The QRs of each render job the test's consumer took. */
  const batches: number[] = [];

  before(async () => {
    account = await harness().bootstrap();
    // An API whose render lane lives under a prefix of its own, worked by the test's consumer: each job seen.
    producers = await createProducers(harness().redis, harness().deps.config, prefix);
    server = createApp({ ...harness().deps, producers, logger: pino({ level: 'silent' }) }).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    consumer = new RenderLaneConsumer(prefix, harness().deps.config, async (job) => {
      batches.push(job.qrs.length);
      await renderLaneJob(producers, job);
    });
  });

  after(async () => {
    await consumer.close();
    server.close();
    await producers.close();
    await removeKeysMatching(harness().redis, `${prefix}:*`);
  });

  it('40 requests at once: fewer render jobs than QRs, and every answer carries the image of its own link', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, async () => {
        const res = await fetch(`${url}/v1/qrs`, {
          method: 'POST',
          headers: { ...qrHeaders(account), 'content-type': 'application/json' },
          body: JSON.stringify(qrBody(account.storeUid)),
        });
        return { status: res.status, body: (await res.json()) as { qr_base64: string; qr_content: string } };
      }),
    );
    expect(answers.map((a) => a.status)).to.deep.equal(Array(40).fill(201));
    for (const a of answers) {
      const png = Buffer.from(a.body.qr_base64.replace(/^data:image\/png;base64,/, ''), 'base64');
      expect(await decodeQrPng(png)).to.equal(a.body.qr_content);
    }
    expect(batches.reduce((sum, n) => sum + n, 0)).to.equal(40);
    expect(batches.length).to.be.below(40);
    expect(Math.max(...batches)).to.be.above(1);
  });
});
