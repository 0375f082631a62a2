/**
 * dispatch-webhooks (every WEBHOOK_DISPATCH_MS): committed events become deliveries, each queued as its own
 * job. Deliveries whose job was lost (Redis flushed, the enqueue after the commit failed) are queued again.
 */
import type { Config } from '../shared/config.js';
import type { Db } from '../shared/db.js';
import { jobId } from '../shared/jobs.js';
import type { Producers } from '../shared/queues.js';
import { dispatchEvents, unattemptedDeliveries } from '../shared/repositories/webhooks.js';

const BATCH = 500;
/** A delivery this old without an attempt lost its job; younger ones may just be waiting in the queue. */
const REQUEUE_AFTER_MS = 60_000;

export async function enqueueDelivery(producers: Producers, config: Readonly<Config>, deliveryId: string): Promise<void> {
  await producers.add(
    'deliver-webhook',
    { deliveryId },
    {
      jobId: jobId.deliverWebhook(deliveryId),
      attempts: config.webhookAttempts,
      backoff: { type: 'exponential', delay: config.webhookBackoffMs },
      removeOnComplete: { age: 3600, count: 1000 },
      removeOnFail: { age: 86_400 },
    },
  );
}

export async function dispatchWebhooksJob(db: Db, producers: Producers, config: Readonly<Config>, now = new Date()): Promise<{ queued: number }> {
  const created = await dispatchEvents(db, BATCH);
  const lost = await unattemptedDeliveries(db, new Date(now.getTime() - REQUEUE_AFTER_MS), BATCH);
  const ids = [...new Set([...created, ...lost])];
  for (const id of ids) await enqueueDelivery(producers, config, id);
  return { queued: ids.length };
}
