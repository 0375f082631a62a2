/**
 * deliver-webhook: one signed POST of an event to one endpoint. A 2xx ends it; anything else is recorded
 * in the delivery log and thrown for BullMQ to retry with backoff, until the last attempt marks it FAILED.
 * The same event id (`webhook-id`) goes with every attempt, so the receiver can drop duplicates.
 */
import type { Job } from 'bullmq';
import { boundTo, decrypt, type Keyring } from '../shared/platform/crypto/encrypt-at-rest.js';
import type { Db } from '../shared/platform/db.js';
import type { DeliverWebhookPayload } from '../shared/platform/jobs.js';
import { deliveryToSend, recordAttempt } from '../shared/repositories/webhooks.js';
import { webhookHeaders } from '../shared/webhooks/sign-webhook.js';
import { WebhookUndelivered, type WebhookClient } from '../shared/webhooks/webhook-client.js';

export interface WebhookDeps {
  db: Db;
  client: WebhookClient;
  keyring: Keyring;
}

export async function deliverWebhookJob(deps: WebhookDeps, job: Job<DeliverWebhookPayload>): Promise<{ status: 'delivered' | 'skipped'; event?: string; statusCode?: number }> {
  const found = await deliveryToSend(deps.db, job.data.deliveryId);
  if (!found || found.delivery.status !== 'PENDING') return { status: 'skipped' };
  if (found.endpointDeleted) {
    await recordAttempt(deps.db, found.delivery.id, { delivered: false, error: 'endpoint deleted', final: true });
    return { status: 'skipped' };
  }
  const secret = decrypt(found.secretEncrypted, deps.keyring, boundTo.webhookSecret(found.delivery.endpoint_id)).toString('utf8');
  const body = JSON.stringify(found.payload);
  try {
    const { status } = await deps.client.post(found.url, body, webhookHeaders(secret, found.payload.id, body));
    await recordAttempt(deps.db, found.delivery.id, { delivered: true, statusCode: status });
    return { status: 'delivered', event: found.payload.type, statusCode: status };
  } catch (err) {
    if (!(err instanceof WebhookUndelivered)) throw err;
    const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    await recordAttempt(deps.db, found.delivery.id, { delivered: false, statusCode: err.statusCode, error: err.message, final });
    throw err;
  }
}
