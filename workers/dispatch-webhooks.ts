/**
 * dispatch-webhooks (every WEBHOOK_DISPATCH_MS): committed events become deliveries, each queued as its own
 * job. Deliveries whose job was lost (Redis flushed, the enqueue after the commit failed) are queued again;
 * retrying ones whose job was lost end FAILED (and need attention, issue #38) instead of PENDING forever.
 */
import type { Db } from '../shared/platform/db.js';
import type { Producers } from '../shared/platform/queues.js';
import type { Config } from '../shared/platform/config.js';
import { dispatchEvents, failInterruptedDeliveries, unattemptedDeliveries } from '../shared/repositories/webhooks.js';

const BATCH = 500;
/** A delivery this old without an attempt lost its job; younger ones may just be waiting in the queue. */
const REQUEUE_AFTER_MS = 60_000;

export async function enqueueDelivery(producers: Producers, deliveryId: string): Promise<void> {
  await producers.add('deliver-webhook', { deliveryId });
}

/**
 * The longest wait between two attempts (the last backoff, WEBHOOK_BACKOFF_MS doubled WEBHOOK_ATTEMPTS − 2
 * times), and as much again: a retrying delivery with no attempt for that long has lost its job.
 */
export const interruptedAfterMs = (s: Pick<Config, 'webhookAttempts' | 'webhookBackoffMs'>): number =>
  2 * s.webhookBackoffMs * 2 ** Math.max(0, s.webhookAttempts - 2) + REQUEUE_AFTER_MS;

export async function dispatchWebhooksJob(
  db: Db,
  producers: Producers,
  settings: Pick<Config, 'webhookAttempts' | 'webhookBackoffMs'>,
  now = new Date(),
): Promise<{ queued: number; failed: number }> {
  const created = await dispatchEvents(db, BATCH);
  const lost = await unattemptedDeliveries(db, new Date(now.getTime() - REQUEUE_AFTER_MS), BATCH);
  const ids = [...new Set([...created, ...lost])];
  for (const id of ids) await enqueueDelivery(producers, id);
  const interrupted = await failInterruptedDeliveries(db, new Date(now.getTime() - interruptedAfterMs(settings)), BATCH);
  return { queued: ids.length, failed: interrupted.length };
}
