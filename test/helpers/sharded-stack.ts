import { QueueEvents, type Job } from 'bullmq';
import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { jobId, type InvoicesPayload, type QueueName } from '../../shared/platform/jobs.js';
import { shardOfJob } from '../../shared/platform/queues.js';
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
      // Its stamp batch (issue #40), on the shard of its first invoice's name: the one it leads, else one listing it.
      let found: { job: Job; shard: number } | undefined;
      for (const [shard, queue] of stack.producers.queues('stamp').entries()) {
        const led = await queue.getJob(jobId.stampInvoices(invoiceId));
        const job =
          led ??
          (await queue.getJobs(['waiting', 'active', 'delayed', 'prioritized', 'completed'])).find(
            (j) => j.name === 'stamp-invoices' && (j.data as InvoicesPayload).invoiceIds.includes(invoiceId),
          );
        if (job) {
          expect(shard).to.equal(shardOfJob('stamp-invoices', job.data as InvoicesPayload, stack.config.queueShards));
          found = { job, shard };
          break;
        }
      }
      expect(found, `stamp batch of ${invoiceId}`).to.not.equal(undefined);
      const { job, shard } = found!;
      await job.waitUntilFinished(stampEvents[shard]!, 60_000);
      const status = ((await harness().deps.db('qr_transactions').where({ id: qrId }).first('status')) as { status: string }).status;
      return { status, shard };
    },
    async close() {
      await Promise.all(stampEvents.map((e) => e.close()));
    },
  };
}
