import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { Worker, type Job } from 'bullmq';
import { expect } from 'chai';
import { pino } from 'pino';
import { createApp } from '../../api/app.js';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import type { RenderQrPayload } from '../../shared/platform/jobs.js';
import { createProducers, type Producers } from '../../shared/platform/queues.js';
import { renderQrJob } from '../../workers/render-qr.js';
import { harness } from '../helpers/harness.js';
import { removeKeysMatching } from '../helpers/redis-keys.js';
import { postQr, qrBody, qrHeaders } from '../helpers/qr-body.js';

/** An API whose render queue lives under its own prefix, so the test decides who (if anyone) works it. */
async function isolatedApi(prefix: string, renderTimeoutMs: number): Promise<{ url: string; producers: Producers; server: Server }> {
  const producers = await createProducers(harness().redis, harness().deps.config, prefix);
  const deps = { ...harness().deps, producers, config: { ...harness().deps.config, renderTimeoutMs }, logger: pino({ level: 'silent' }) };
  const server = createApp(deps).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, producers, server };
}

describe('POST /v1/qrs when rendering fails', () => {
  let account: BootstrapResult;
  before(async () => {
    account = await harness().bootstrap();
  });

  async function post(url: string, key: string) {
    const res = await fetch(`${url}/v1/qrs`, {
      method: 'POST',
      headers: { ...qrHeaders(account, key), 'content-type': 'application/json' },
      body: JSON.stringify(qrBody(account.storeUid)),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as { error: { code: string; request_id: string } } };
  }

  async function nothingWritten(key: string) {
    const db = harness().deps.db;
    expect(await db('idempotency_keys').where({ key })).to.have.length(0);
    expect(await db('qr_transactions').where({ idempotency_key: key })).to.have.length(0);
  }

  it('answers 503 qr_render_timeout with Retry-After when no worker renders in time, and writes nothing', async () => {
    // Nothing ever renders here, so a short budget gives the same answer as a long one.
    const api = await isolatedApi(`norender${process.pid}`, 500);
    try {
      const key = randomUUID();
      const res = await post(api.url, key);
      expect(res.status).to.equal(503);
      expect(res.body.error.code).to.equal('qr_render_timeout');
      expect(res.headers.get('retry-after')).to.equal('1');
      await nothingWritten(key);
      expect(await api.producers.queue('render').getWaitingCount()).to.equal(0);
    } finally {
      api.server.close();
      await api.producers.close();
      await removeKeysMatching(harness().redis, `norender${process.pid}:*`);
    }
  });

  it('answers 500 qr_render_failed when the render job fails, and writes nothing', async () => {
    const prefix = `badrender${process.pid}`;
    // The budget must not run out before the failure is reported: this test is about the failure, not the timeout.
    const api = await isolatedApi(prefix, harness().deps.config.renderTimeoutMs);
    // The render worker's own handler, with a renderer that crashes: the failure is replied to the API's inbox.
    const worker = new Worker(
      'render',
      (job: Job<RenderQrPayload>) =>
        renderQrJob(api.producers, job, () => {
          throw new Error('renderer crashed');
        }),
      {
        connection: { url: harness().deps.config.redisUrl, maxRetriesPerRequest: null },
        prefix,
      },
    );
    try {
      await worker.waitUntilReady();
      const key = randomUUID();
      const started = performance.now();
      const res = await post(api.url, key);
      expect(res.status).to.equal(500);
      expect(performance.now() - started, 'answered when the render failed, not at the timeout').to.be.below(harness().deps.config.renderTimeoutMs);
      expect(res.body.error.code).to.equal('qr_render_failed');
      await nothingWritten(key);
      // The same key works once rendering works again.
      expect((await postQr(account, qrBody(account.storeUid), key)).status).to.equal(201);
    } finally {
      await worker.close();
      api.server.close();
      await api.producers.close();
      await removeKeysMatching(harness().redis, `${prefix}:*`);
    }
  });
});
