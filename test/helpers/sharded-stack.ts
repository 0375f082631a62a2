import { QueueEvents } from 'bullmq';
import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import type { QueueName, StampInvoicesResult } from '../../shared/platform/jobs.js';
import { shardPrefixes } from '../../shared/platform/queue-shards.js';
import { bullmqConnection } from '../../shared/platform/redis.js';
import { BUYER } from './buyer.js';
import { harness } from './harness.js';
import { qrBody, qrHeaders } from './qr-body.js';
import type { StackOnRedis } from './stack-on-redis.js';

/** A sale of `account` through a stack's API, then its buyer's confirmation and its stamp (issue #40's shard tests). */
export interface ShardedSales {
  /** POST /v1/qrs: 201 with the QR. */
  sell(account: BootstrapResult): Promise<{ qrId: string; qrContent: string }>;
  /** Preview and confirm; resolves with the sale's status once its stamp batch finished, and the shard that job was on. */
  confirmAndStamp(sale: { qrId: string; qrContent: string }): Promise<{ status: string; shard: number }>;
  close(): Promise<void>;
}

/** Every shard's completion events of the stamp queue of a stack with QUEUE_SHARDS. */
export async function shardedSales(stack: StackOnRedis): Promise<ShardedSales> {
  const events = (queue: QueueName) =>
    shardPrefixes(stack.config.queuePrefix, stack.config.queueShards).map((prefix) => new QueueEvents(queue, { connection: bullmqConnection(stack.config), prefix }));
  const stampEvents = events('stamp');
  await Promise.all(stampEvents.map((e) => e.waitUntilReady()));
  // The shard each invoice's stamp finished on, from the completion events alone: looking the batch up among the
  // jobs would add Redis commands to the masters whose shares the tests measure. A batch names its invoices in
  // its result (those handed on to a job of their own finish with that job, `stamp.<invoice>`).
  const finished = new Map<string, number>();
  const waiting = new Map<string, (shard: number) => void>();
  stampEvents.forEach((queueEvents, shard) =>
    queueEvents.on('completed', ({ jobId: id, returnvalue }) => {
      const done = id.startsWith('stamps.')
        ? (returnvalue as unknown as StampInvoicesResult).invoices.filter((o) => o.outcome !== 'retrying').map((o) => o.invoiceId)
        : id.startsWith('stamp.')
          ? [id.slice('stamp.'.length)]
          : [];
      for (const invoiceId of done) {
        const resolve = waiting.get(invoiceId);
        if (resolve) resolve(shard);
        else finished.set(invoiceId, shard);
      }
    }),
  );
  const finishedStamp = (invoiceId: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const shard = finished.get(invoiceId);
      if (shard !== undefined) return resolve(shard);
      const timer = setTimeout(() => reject(new Error(`the stamp of ${invoiceId} did not finish within 60 s`)), 60_000);
      waiting.set(invoiceId, (at) => {
        clearTimeout(timer);
        waiting.delete(invoiceId);
        resolve(at);
      });
    });
  const publicPost = async (path: string, body: unknown) => {
    const res = await fetch(`${stack.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return {
    async sell(account) {
      const res = await fetch(`${stack.baseUrl}/v1/qrs`, {
        method: 'POST',
        headers: { ...qrHeaders(account), 'content-type': 'application/json' },
        body: JSON.stringify(qrBody(account.storeUid)),
      });
      const body = (await res.json()) as { qr_id: string; qr_content: string };
      expect(res.status, JSON.stringify(body)).to.equal(201);
      return { qrId: body.qr_id, qrContent: body.qr_content };
    },
    async confirmAndStamp({ qrId, qrContent }) {
      const link = new URL(qrContent);
      const request = { v: link.searchParams.get('v'), t: link.searchParams.get('t'), m: link.searchParams.get('m'), customer: BUYER };
      const preview = await publicPost('/v1/public/qrs/preview', request);
      expect(preview.status).to.equal(200);
      const confirmed = await publicPost('/v1/public/qrs/confirm', { ...request, review_digest: preview.body.review_digest });
      expect(confirmed.status).to.equal(202);
      const invoiceId = ((await harness().deps.db('invoices').where({ transaction_id: qrId }).first('id')) as { id: string }).id;
      const shard = await finishedStamp(invoiceId);
      const status = ((await harness().deps.db('qr_transactions').where({ id: qrId }).first('status')) as { status: string }).status;
      return { status, shard };
    },
    async close() {
      await Promise.all(stampEvents.map((e) => e.close()));
    },
  };
}
