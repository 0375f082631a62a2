import { randomUUID } from 'node:crypto';
import { QueueEvents } from 'bullmq';
import { expect } from 'chai';
import type { Cluster } from 'ioredis';
import { startOwnRedisCluster, type OwnRedisCluster } from '../../../chaos/own-redis-cluster.js';
import type { BootstrapResult } from '../../../cli/bootstrap.js';
import { expiryBucket } from '../../../shared/domain/expiry-buckets.js';
import { jobId } from '../../../shared/platform/jobs.js';
import { countAndRead } from '../../../api/middleware/rate-limit.js';
import { principalGenerationKey } from '../../../shared/platform/principal-generation.js';
import { calculateSlot } from '../../../shared/platform/queue-shards.js';
import { bullmqConnection, connectFailFast, serviceKeyPrefix } from '../../../shared/platform/redis.js';
import { groupTag } from '../../../shared/platform/service-key-groups.js';
import { AppError } from '../../../shared/platform/errors.js';
import { BUYER } from '../../helpers/buyer.js';
import { rejection } from '../../helpers/rejection.js';
import { harness } from '../../helpers/harness.js';
import { qrBody, qrHeaders } from '../../helpers/qr-body.js';
import { configWith, startStackOn, type StackOnRedis } from '../../helpers/stack-on-redis.js';

/**
 * A Redis Cluster of 3 masters and 3 replicas on loopback, an API and its workers on it (REDIS_CLUSTER_NODES):
 * the whole sale → confirm → stamp path, the idempotency cache and the rate limits there; then the master
 * serving the queues' slot is killed and its replica takes over. The same failover under a stream of
 * POSTs is `npm run chaos -- redis-cluster`.
 */
describe('issue #30: on a Redis Cluster (REDIS_CLUSTER_NODES)', function () {
  this.timeout(90_000);
  let cluster: OwnRedisCluster;
  let stack: StackOnRedis | undefined;
  let stampEvents: QueueEvents | undefined;
  let account: BootstrapResult;
  const prefix = `${process.env.QUEUE_PREFIX ?? 'aftest'}cl`;

  before(async () => {
    cluster = await startOwnRedisCluster();
    account = await harness().bootstrap();
    stack = await startStackOn(configWith({ REDIS_CLUSTER_NODES: cluster.seeds, QUEUE_PREFIX: prefix }));
    stampEvents = new QueueEvents('stamp', { connection: bullmqConnection(stack.config), prefix: stack.config.queuePrefix });
    await stampEvents.waitUntilReady();
  });

  after(async () => {
    await stampEvents?.close();
    await stack?.close();
    await cluster?.stop();
  });

  async function post(body: unknown, key = randomUUID()) {
    const res = await fetch(`${stack!.baseUrl}/v1/qrs`, {
      method: 'POST',
      headers: { ...qrHeaders(account, key), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { qr_id: string; qr_content: string } };
  }

  async function publicPost(path: string, body: unknown) {
    const res = await fetch(`${stack!.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  /** The buyer previews and confirms; resolves when the stamp job finished, with the transaction's status. */
  async function confirmAndStamp(qrContent: string, qrId: string, email = BUYER.email): Promise<string> {
    const link = new URL(qrContent);
    const request = { v: link.searchParams.get('v'), t: link.searchParams.get('t'), m: link.searchParams.get('m'), customer: { ...BUYER, email } };
    const preview = await publicPost('/v1/public/qrs/preview', request);
    expect(preview.status).to.equal(200);
    const confirmed = await publicPost('/v1/public/qrs/confirm', { ...request, review_digest: preview.body.review_digest });
    expect(confirmed.status).to.equal(202);
    const invoice = await harness().deps.db('invoices').where({ transaction_id: qrId }).first('id');
    // Confirmed alone: its stamp batch (issue #40) is named after it.
    const job = await stack!.producers.queue('stamp').getJob(jobId.stampInvoices(invoice.id as string));
    await job!.waitUntilFinished(stampEvents!, 60_000);
    return (await harness().deps.db('qr_transactions').where({ id: qrId }).first('status')).status as string;
  }

  it('hash-tags the queue prefix, so every key of a queue shares one slot', () => {
    expect(stack!.config.queuePrefix).to.equal(`{${prefix}}`);
  });

  it('creates and renders a QR, replays it from the idempotency cache, counts the rate limit, and stamps its confirmation', async () => {
    const key = randomUUID();
    const body = qrBody(account.storeUid);
    const first = await post(body, key);
    expect(first.status).to.equal(201);
    expect(await harness().deps.db('qr_transactions').where({ id: first.body.qr_id })).to.have.length(1);
    expect(await post(body, key)).to.deep.equal(first);
    const masters = (stack!.redis as Cluster).nodes('master');
    const tagged = await Promise.all(masters.map((node) => node.keys(`${stack!.config.queuePrefix}:*`)));
    // One slot: every key of the queues is on one master.
    expect(tagged.filter((keysOfNode) => keysOfNode.length > 0)).to.have.length(1);
    // The service's keys under the prefix without its tag (issue #40): each hashes on its own or its holder's group tag.
    const service = (await Promise.all(masters.map((node) => node.keys(`${prefix}:*`)))).flat();
    expect(service.some((k) => k.startsWith(`${prefix}:rl:api-key:`))).to.equal(true);
    expect(service.some((k) => k.startsWith(`${prefix}:idem:`))).to.equal(true);
    expect(service.some((k) => k.startsWith(`${prefix}:apikey-gen:{sg`))).to.equal(true);
    expect(await confirmAndStamp(first.body.qr_content, first.body.qr_id)).to.equal('INVOICED');
  });

  it('issue #40: the limiter counts and reads keys of several holders (several slots) in one round trip, no error', async () => {
    const service = await connectFailFast(stack!.config, { keyPrefix: serviceKeyPrefix(stack!.config.queuePrefix) });
    try {
      const [a, b] = ['holder-a', 'holder-b'];
      expect(calculateSlot(groupTag(a))).to.not.equal(calculateSlot(groupTag(b)));
      const warnings: unknown[] = [];
      const ctx = { ip: '192.0.2.1', state: { log: { warn: (o: unknown) => warnings.push(o) } } } as unknown as Parameters<typeof countAndRead>[2];
      const limits = [
        { scope: 'cluster-a', perMinute: 10, key: () => a },
        { scope: 'cluster-b', perMinute: 10, key: () => b, cost: () => 0 },
      ];
      await service.set(principalGenerationKey(a), 'gen-a');
      const values = await countAndRead(service, limits, ctx, [principalGenerationKey(a), 'a-key-of-its-own']);
      expect(warnings).to.deep.equal([]);
      expect(values).to.deep.equal(['gen-a', null]);
      // Counted: the second request sees the first's count (limit 1 would now refuse).
      await countAndRead(service, limits, ctx, []);
      expect((await rejection(countAndRead(service, [{ ...limits[0]!, perMinute: 2 }], ctx, []), AppError)).status).to.equal(429);
    } finally {
      service.disconnect();
    }
  });

  it("the invoice's e-mail with its PDF, and a QR's expiry at its time, run on the cluster's queues too", async () => {
    const events = Object.fromEntries(
      (['expiry'] as const).map((q) => [q, new QueueEvents(q, { connection: bullmqConnection(stack!.config), prefix: stack!.config.queuePrefix })]),
    ) as Record<'expiry', QueueEvents>;
    try {
      await Promise.all(Object.values(events).map((e) => e.waitUntilReady()));
      const sale = await post(qrBody(account.storeUid));
      const email = `cluster-${sale.body.qr_id}@example.test`;
      expect(await confirmAndStamp(sale.body.qr_content, sale.body.qr_id, email)).to.equal('INVOICED');
      const invoice = await harness().deps.db('invoices').where({ transaction_id: sale.body.qr_id }).first('id', 'uuid');
      // The stamp batch sent the mail after recording the stamp, before it ended (issue #40).
      const mail = harness().smtp.messages.find((m) => m.to.includes(email));
      expect(mail!.attachment(`${invoice.uuid}.pdf`)!.subarray(0, 5).toString()).to.equal('%PDF-');

      const soon = await post(qrBody(account.storeUid, { expires_at: new Date(Date.now() + 1500).toISOString() }));
      expect(soon.status).to.equal(201);
      const expiresAt = (await harness().deps.db('qr_transactions').where({ id: soon.body.qr_id }).first('expires_at')).expires_at as Date;
      const bucket = await stack!.producers.queue('expiry').getJob(jobId.expireDue(expiryBucket(expiresAt)));
      expect(bucket, 'its expiry bucket, delayed on the cluster').to.not.equal(undefined);
      await bucket!.waitUntilFinished(events.expiry, 15_000);
      expect((await harness().deps.db('qr_transactions').where({ id: soon.body.qr_id }).first('status')).status).to.equal('EXPIRED');
    } finally {
      await Promise.all(Object.values(events).map((e) => e.close()));
    }
  });

  it("kill -9 of the master serving the queues' slot: its replica takes over and the API and workers go on by themselves", async () => {
    const master = await cluster.masterOf(`{${prefix}}`);
    await cluster.kill(master);
    const tookMs = await cluster.waitTakeover(master);
    expect(await cluster.masters()).to.not.include(master);
    // No restart of anything: the same API and workers create, render and stamp again.
    let created: Awaited<ReturnType<typeof post>> | undefined;
    for (let i = 0; i < 20 && created?.status !== 201; i++) created = await post(qrBody(account.storeUid));
    expect(created?.status, `within ${tookMs.toFixed(0)} ms of the takeover`).to.equal(201);
    expect(await confirmAndStamp(created!.body.qr_content, created!.body.qr_id)).to.equal('INVOICED');
    // Every queue's worker goes on, not only those the sale used: the webhooks worker (idle between its
    // scheduler's runs, WEBHOOK_DISPATCH_MS apart) once stopped for good when the failover caught it reconnecting.
    const webhookEvents = new QueueEvents('webhooks', { connection: bullmqConnection(stack!.config), prefix: stack!.config.queuePrefix });
    try {
      await webhookEvents.waitUntilReady();
      const dispatched = new Promise<void>((resolve) =>
        webhookEvents.on('completed', ({ jobId: id }) => {
          if (id.startsWith(`repeat:${jobId.dispatchWebhooks}:`)) resolve();
        }),
      );
      await Promise.race([dispatched, new Promise((_, reject) => setTimeout(() => reject(new Error('no dispatch-webhooks job ran within 10 s of the takeover')), 10_000))]);
    } finally {
      await webhookEvents.close();
    }
    // A worker that hung on the failover would hang its close too (the process would never stop on SIGTERM).
    const closing = stack!.workers.close();
    await Promise.race([closing, new Promise((_, reject) => setTimeout(() => reject(new Error('the workers did not close within 15 s')), 15_000))]);
  });
});
