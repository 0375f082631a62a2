/**
 * dispatch-webhooks (every WEBHOOK_DISPATCH_MS): committed events become deliveries, each queued as its own
 * job. Deliveries whose job was lost (Redis flushed, the enqueue after the commit failed) are queued again.
 */
import type { Db } from '../shared/platform/db.js';
import type { Producers } from '../shared/platform/queues.js';
import { dispatchEvents, unattemptedDeliveries } from '../shared/repositories/webhooks.js';

const BATCH = 500;
/** A delivery this old without an attempt lost its job; younger ones may just be waiting in the queue. */
const REQUEUE_AFTER_MS = 60_000;

export async function enqueueDelivery(producers: Producers, deliveryId: string): Promise<void> {
  await producers.add('deliver-webhook', { deliveryId });
}

export async function dispatchWebhooksJob(db: Db, producers: Producers, now = new Date()): Promise<{ queued: number }> {
  const created = await dispatchEvents(db, BATCH);
  const lost = await unattemptedDeliveries(db, new Date(now.getTime() - REQUEUE_AFTER_MS), BATCH);
  const ids = [...new Set([...created, ...lost])];
  for (const id of ids) await enqueueDelivery(producers, id);
  return { queued: ids.length };
}
