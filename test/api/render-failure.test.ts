import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { expect } from 'chai';
import { pino } from 'pino';
import { createApp } from '../../api/app.js';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { createProducers, type Producers } from '../../shared/platform/queues.js';
import { connectFailFast } from '../../shared/platform/redis.js';
import { CLOCK_SLACK_MS, RenderLaneConsumer, renderLaneKey } from '../../shared/platform/render-lane.js';
import { renderLaneJob, renderQrPngs } from '../../workers/render-qr.js';
import { harness } from '../helpers/harness.js';
import { removeKeysMatching } from '../helpers/redis-keys.js';
import { postQr, qrBody, qrHeaders } from '../helpers/qr-body.js';

/** An API whose render lane lives under its own prefix, so the test decides who (if anyone) works it. */
async function isolatedApi(prefix: string, renderTimeoutMs: number): Promise<{ url: string; prefix: string; producers: Producers; server: Server }> {
  const producers = await createProducers(harness().redis, harness().deps.config, prefix);
  const deps = { ...harness().deps, producers, config: { ...harness().deps.config, renderTimeoutMs }, logger: pino({ level: 'silent' }) };
  const server = createApp(deps).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, prefix, producers, server };
}

describe('POST /v1/qrs when rendering fails', () => {
  let account: BootstrapResult;
  before(async () => {
    account = await harness().bootstrap();
  });

  async function post(url: string, key: string, body: unknown = qrBody(account.storeUid)) {
    const res = await fetch(`${url}/v1/qrs`, {
      method: 'POST',
      headers: { ...qrHeaders(account, key), 'content-type': 'application/json' },
      body: JSON.stringify(body),
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
      // The job waits in the lane: a consumer that comes past its deadline (and the allowance for clocks) drops it unrendered.
      expect(await harness().redis.llen(renderLaneKey(api.prefix))).to.equal(1);
      await new Promise((r) => setTimeout(r, CLOCK_SLACK_MS + 50));
      let rendered = 0;
      const late = new RenderLaneConsumer(api.prefix, harness().deps.config, () => {
        rendered += 1;
        return Promise.resolve();
      });
      while ((await harness().redis.llen(renderLaneKey(api.prefix))) > 0) await new Promise((r) => setTimeout(r, 20));
      await late.close();
      expect(rendered).to.equal(0);
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
    let renders = 0;
    const failures: unknown[] = [];
    const worker = new RenderLaneConsumer(prefix, harness().deps.config, (job) =>
      renderLaneJob(api.producers, job, () => {
        renders += 1;
        throw new Error('renderer crashed');
      }).then(
        () => undefined,
        (err: unknown) => {
          failures.push(err);
        },
      ),
    );
    try {
      const key = randomUUID();
      const started = performance.now();
      const res = await post(api.url, key);
      expect(res.status).to.equal(500);
      expect(performance.now() - started, 'answered when the render failed, not at the timeout').to.be.below(harness().deps.config.renderTimeoutMs);
      expect(res.body.error.code).to.equal('qr_render_failed');
      await nothingWritten(key);
      // The encoder fails the same way every time: the job is not run again (only a lost reply is sent again).
      expect(failures).to.have.length(1);
      expect(renders).to.equal(1);
      // The same key works once rendering works again.
      expect((await postQr(account, qrBody(account.storeUid), key)).status).to.equal(201);
    } finally {
      await worker.close();
      api.server.close();
      await api.producers.close();
      await removeKeysMatching(harness().redis, `${prefix}:*`);
    }
  });

  it('answers 503 qr_render_timeout with Retry-After, never 500, when the worker cannot reply (its Redis connection closed), and the key works afterwards (issue #38)', async function () {
    this.timeout(30_000);
    const prefix = `lostreply${process.pid}`;
    // Long enough for the job's every attempt to fail and be recorded before the API's last look.
    const api = await isolatedApi(prefix, 3000);
    // The worker process's producers, on a fail-fast connection of their own (runtime.ts), closed as a failover
    // closes it: every reply fails with ioredis' "Connection is closed.".
    const workerRedis = await connectFailFast(harness().deps.config);
    const workerProducers = await createProducers(workerRedis, harness().deps.config, prefix);
    workerRedis.disconnect();
    let renders = 0;
    const reasons: string[] = [];
    const worker = new RenderLaneConsumer(prefix, harness().deps.config, (job) =>
      renderLaneJob(workerProducers, job, (data) => {
        renders += 1;
        return renderQrPngs(data);
      }).then(
        () => undefined,
        (err: unknown) => {
          reasons.push((err as Error).message);
        },
      ),
    );
    try {
      const key = randomUUID();
      const body = qrBody(account.storeUid);
      const res = await post(api.url, key, body);
      expect(res.status).to.equal(503);
      expect(res.body.error.code).to.equal('qr_render_timeout');
      expect(res.headers.get('retry-after')).to.equal('1');
      // The reply was sent again until the job's deadline, then given up: rendered once, not again.
      while (reasons.length === 0) await new Promise((r) => setTimeout(r, 50));
      expect(reasons).to.deep.equal(['Connection is closed.']);
      expect(renders, 'a reply lost to Redis is sent again, not rendered again').to.equal(1);
      await nothingWritten(key);
      // The POS retries the same request with the same key once Redis answers again: the sale is created,
      // and that key replays it from then on.
      const retried = await postQr(account, body, key);
      expect(retried.status).to.equal(201);
      const replayed = await postQr(account, body, key);
      expect(replayed.status).to.equal(201);
      expect(replayed.body.qr_id).to.equal(retried.body.qr_id);
    } finally {
      await worker.close();
      await workerProducers.close();
      api.server.close();
      await api.producers.close();
      await removeKeysMatching(harness().redis, `${prefix}:*`);
    }
  });
});
