import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { expect } from 'chai';
import { pino } from 'pino';
import { startOwnRedisCluster, type OwnRedisCluster } from '../../chaos/own-redis-cluster.js';
import { createApp } from '../../api/app.js';
import type { ApiDeps } from '../../api/deps.js';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import type { Config } from '../../shared/platform/config.js';
import { createProducers, type Producers } from '../../shared/platform/queues.js';
import { connectFailFast, serviceKeyPrefix, type RedisClient } from '../../shared/platform/redis.js';
import { RenderLaneConsumer } from '../../shared/platform/render-lane.js';
import { satCatalogs } from '../../shared/sat/catalogs.js';
import { renderLaneJob } from '../../workers/render-qr.js';
import { decodeQrPng } from '../helpers/decode-qr.js';
import { harness } from '../helpers/harness.js';
import { qrBody, qrHeaders } from '../helpers/qr-body.js';
import { configWith } from '../helpers/stack-on-redis.js';

/**
 * Issue #38, item 9: on a Redis Cluster whose master dies under load, a render job running at that moment
 * lost its reply ("Connection is closed." on the worker's fail-fast connection) and, with one attempt, its
 * request answered 500 `qr_render_failed` at the end of its wait. Here an API and a render worker, each on
 * its own connections as in production (runtime.ts: the worker replies over its fail-fast producers'
 * connection; the render lane's consumer on a blocking one of its own, issue #40), run on a cluster of the
 * test's own, and the master serving the service's slot is killed with SIGKILL while a render job runs,
 * before it replies: the worker sends its reply again until the new master takes it or the job's deadline comes.
 */
describe('issue #38: a render job whose Redis master dies under it (Redis Cluster failover)', function () {
  this.timeout(120_000);
  let cluster: OwnRedisCluster;
  let account: BootstrapResult;
  let cfg: Readonly<Config>;
  const closers: (() => Promise<void> | void)[] = [];
  let baseUrl: string;
  /** Set by a test: runs inside the next render job, before the handler renders and replies. */
  let duringNextRender: (() => Promise<void>) | undefined;
  let renders = 0;

  before(async () => {
    cluster = await startOwnRedisCluster();
    account = await harness().bootstrap();
    cfg = configWith({ REDIS_CLUSTER_NODES: cluster.seeds, QUEUE_PREFIX: `${process.env.QUEUE_PREFIX ?? 'aftest'}rf` });
    // The API process: its producers (and their inbox) and its service keys, as openRuntime opens them.
    const serviceRedis = await connectFailFast(cfg, { keyPrefix: serviceKeyPrefix(cfg.queuePrefix) });
    const apiRedis = await connectFailFast(cfg);
    const producers = await createProducers(apiRedis, cfg);
    const deps: ApiDeps = { ...harness().deps, config: cfg, redis: serviceRedis, producers, catalogs: satCatalogs(), logger: pino({ level: 'silent' }) };
    const server: Server = createApp(deps).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    // The worker process: the render handler replies through producers of its own, on a fail-fast connection.
    const workerRedis: RedisClient = await connectFailFast(cfg);
    const workerProducers: Producers = await createProducers(workerRedis, cfg);
    const worker = new RenderLaneConsumer(cfg.queuePrefix, cfg, async (job) => {
      renders += 1;
      const during = duringNextRender;
      duringNextRender = undefined;
      if (during) await during();
      await renderLaneJob(workerProducers, job).catch(() => undefined);
    });
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
      () => worker.close(),
      () => workerProducers.close(),
      () => workerRedis.disconnect(),
      () => producers.close(),
      () => apiRedis.disconnect(),
      () => serviceRedis.disconnect(),
    );
  });

  after(async () => {
    for (const close of closers) await close();
    await cluster?.stop();
  });

  async function post(key: string, body: unknown) {
    const started = performance.now();
    const res = await fetch(`${baseUrl}/v1/qrs`, {
      method: 'POST',
      headers: { ...qrHeaders(account, key), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      ms: performance.now() - started,
      body: (await res.json()) as { qr_id: string; qr_content: string; qr_base64: string; error?: { code: string; request_id: string } },
    };
  }

  it('the request answers 201 with its image once the reply is sent again to the new master (or 503 to retry, when that comes late), never 500; its key then replays the same QR', async () => {
    const before = await post(randomUUID(), qrBody(account.storeUid));
    expect(before.status, 'a sale before the failover').to.equal(201);
    const master = await cluster.masterOf(cfg.queuePrefix);
    let killedAt = 0;
    duringNextRender = async () => {
      await cluster.kill(master);
      killedAt = performance.now();
    };
    const rendersBefore = renders;
    const key = randomUUID();
    const body = qrBody(account.storeUid);
    const first = await post(key, body);
    expect(killedAt, 'the master died during this request').to.be.above(0);
    // 201 once the job ran again on the new master; on a loaded machine the retry may come after
    // RENDER_TIMEOUT_MS: then 503 qr_render_timeout with Retry-After, nothing written, and the POS retries
    // with the same key, as docs/api.md tells it. Since the inbox hashes on its own id (issue #40) the reply
    // may go to a master that lives, and the worker kills the lane's master the moment it takes the job: the
    // API's LPUSH answer can be lost with it, 503 service_unavailable ("not queued"), retried the same way.
    // Never 500.
    // The POS retries as the 503 says: after its Retry-After, with the same key; while the cluster is still
    // promoting the replica the retry may be refused the same way (bounded here at 10 retries).
    let res = first;
    let retries = 0;
    while (res.status === 503 && retries < 10) {
      expect(res.body.error?.code).to.be.oneOf(['qr_render_timeout', 'service_unavailable']);
      expect(res.retryAfter).to.equal('1');
      await new Promise((resolve) => setTimeout(resolve, Number(res.retryAfter) * 1000));
      res = await post(key, body);
      retries += 1;
    }
    expect(first.status, JSON.stringify(first.body)).to.be.oneOf([201, 503]);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const taken = renders - rendersBefore;
    if (first.status === 201) expect(taken, 'the job was taken once').to.equal(1);
    else expect(taken, 'the job was taken once, and again for the retries that queued it').to.be.within(2, 1 + retries);
    expect(await decodeQrPng(Buffer.from(res.body.qr_base64.replace(/^data:image\/png;base64,/, ''), 'base64'))).to.equal(res.body.qr_content);
    expect(await harness().deps.db('qr_transactions').where({ idempotency_key: key })).to.have.length(1);
    // The POS retrying with the same key (its answer lost on the way) gets the same QR.
    const again = await post(key, body);
    expect(again.status).to.equal(201);
    expect(again.body.qr_id).to.equal(res.body.qr_id);
    expect(again.body.qr_content).to.equal(res.body.qr_content);
  });
});
