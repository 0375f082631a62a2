import type { Db, Trx } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import type { WebhookEventPayload, WebhookEventType } from './event-types.js';

/**
 * Writes events to the outbox inside the caller's transaction, so an event exists exactly when the state
 * change it announces was committed. One statement for any number of events; a merchant whose account has
 * no endpoint for the type gets no row.
 */
export async function emitEvents(trx: Db | Trx, type: WebhookEventType, items: { merchantId: string; data: Record<string, unknown> }[]): Promise<void> {
  if (items.length === 0) return;
  const { createdAt, events } = outboxEvents(type, items);
  const rows = events.map((e) => [e.id, e.merchant_id, JSON.stringify(e.payload)]);
  await trx.raw(
    `INSERT INTO webhook_events (id, account_id, type, payload, created_at)
     SELECT v.id, m.account_id, ?, v.payload::jsonb, ?
     FROM (VALUES ${rows.map(() => '(?, ?, ?)').join(', ')}) AS v(id, merchant_id, payload)
     JOIN merchants m ON m.id = v.merchant_id
     WHERE ${endpointWants('m.account_id', '?')}`,
    [type, createdAt, ...rows.flat(), type],
  );
}

/** The outbox rows of `items` (their ids and payloads made here), for a statement that inserts them itself. */
export function outboxEvents(
  type: WebhookEventType,
  items: { merchantId: string; data: Record<string, unknown> }[],
): { createdAt: string; events: { id: string; merchant_id: string; payload: WebhookEventPayload }[] } {
  const createdAt = new Date().toISOString();
  const events = items.map((item) => {
    const id = newId('webhookEvent');
    return { id, merchant_id: item.merchantId, payload: { id, type, created_at: createdAt, data: item.data } };
  });
  return { createdAt, events };
}

/** The condition of an event row for account `account_id` (an SQL expression) and type `type_param`: an endpoint wants it. */
export function endpointWants(accountId: string, typeParam: string): string {
  return `EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.account_id = ${accountId} AND e.deleted_at IS NULL AND (cardinality(e.events) = 0 OR ${typeParam} = ANY(e.events)))`;
}

/**
 * One event of an account itself rather than of one merchant (an export of CFDIs may span its merchants),
 * in the caller's transaction; no row when the account has no endpoint for the type.
 */
export async function emitAccountEvent(trx: Db | Trx, type: WebhookEventType, accountId: string, data: Record<string, unknown>): Promise<void> {
  const id = newId('webhookEvent');
  const createdAt = new Date().toISOString();
  const payload: WebhookEventPayload = { id, type, created_at: createdAt, data };
  await trx.raw(
    `INSERT INTO webhook_events (id, account_id, type, payload, created_at)
     SELECT ?, ?, ?, ?::jsonb, ?
     WHERE EXISTS (
       SELECT 1 FROM webhook_endpoints e
       WHERE e.account_id = ? AND e.deleted_at IS NULL AND (cardinality(e.events) = 0 OR ? = ANY(e.events)))`,
    [id, accountId, type, JSON.stringify(payload), createdAt, accountId, type],
  );
}
