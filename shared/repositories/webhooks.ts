import type { Db } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import type { PageRequest } from '../platform/pagination.js';
import type { WebhookEventPayload, WebhookEventType } from '../webhooks/event-types.js';

export interface WebhookEndpointRow {
  id: string;
  account_id: string;
  url: string;
  description: string | null;
  events: WebhookEventType[];
  secret_encrypted: Buffer;
  created_at: Date;
  deleted_at: Date | null;
}

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

export interface WebhookDeliveryRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
}

export async function createEndpoint(
  db: Db,
  accountId: string,
  endpoint: { id?: string; url: string; events: string[]; description: string | null; secretEncrypted: Buffer },
): Promise<WebhookEndpointRow> {
  const [row] = (await db('webhook_endpoints')
    .insert({
      id: endpoint.id ?? newId('webhookEndpoint'),
      account_id: accountId,
      url: endpoint.url,
      events: endpoint.events,
      description: endpoint.description,
      secret_encrypted: endpoint.secretEncrypted,
    })
    .returning('*')) as WebhookEndpointRow[];
  return row!;
}

export async function listEndpoints(db: Db, accountId: string): Promise<WebhookEndpointRow[]> {
  return (await db('webhook_endpoints').where({ account_id: accountId }).whereNull('deleted_at').orderBy('created_at')) as WebhookEndpointRow[];
}

export async function findEndpoint(db: Db, accountId: string, id: string): Promise<WebhookEndpointRow | undefined> {
  return (await db('webhook_endpoints').where({ account_id: accountId, id }).whereNull('deleted_at').first()) as WebhookEndpointRow | undefined;
}

/** Kept (its delivery log stays readable by id in the database) but gets no new events. */
export async function deleteEndpoint(db: Db, accountId: string, id: string): Promise<boolean> {
  return (await db('webhook_endpoints').where({ account_id: accountId, id }).whereNull('deleted_at').update({ deleted_at: db.fn.now() })) > 0;
}

/**
 * Turns undispatched events into one delivery per subscribed endpoint and marks them dispatched, in one
 * transaction; SKIP LOCKED lets several dispatchers run at once without taking the same events.
 * Returns the new deliveries, to be queued after the commit (a lost enqueue is found by pendingDeliveries).
 */
export async function dispatchEvents(db: Db, limit: number): Promise<string[]> {
  return db.transaction(async (trx) => {
    const events = (await trx('webhook_events').whereNull('dispatched_at').orderBy('created_at').limit(limit).forUpdate().skipLocked().select('id', 'account_id', 'type')) as {
      id: string;
      account_id: string;
      type: WebhookEventType;
    }[];
    if (events.length === 0) return [];
    const endpoints = (await trx('webhook_endpoints')
      .whereIn('account_id', [...new Set(events.map((e) => e.account_id))])
      .whereNull('deleted_at')
      .select('id', 'account_id', 'events')) as Pick<WebhookEndpointRow, 'id' | 'account_id' | 'events'>[];
    const deliveries = events.flatMap((event) =>
      endpoints
        .filter((endpoint) => endpoint.account_id === event.account_id && (endpoint.events.length === 0 || endpoint.events.includes(event.type)))
        .map((endpoint) => ({ id: newId('webhookDelivery'), event_id: event.id, endpoint_id: endpoint.id })),
    );
    const created =
      deliveries.length === 0
        ? []
        : ((await trx('webhook_deliveries').insert(deliveries).onConflict(['event_id', 'endpoint_id', 'created_at']).ignore().returning('id')) as { id: string }[]);
    await trx('webhook_events')
      .whereIn(
        'id',
        events.map((e) => e.id),
      )
      .update({ dispatched_at: trx.fn.now() });
    return created.map((d) => d.id);
  });
}

/** Deliveries still waiting for a first attempt since before `before`: their job was lost. */
export async function unattemptedDeliveries(db: Db, before: Date, limit: number): Promise<string[]> {
  return (await db('webhook_deliveries').where({ status: 'PENDING', attempts: 0 }).where('created_at', '<', before).orderBy('created_at').limit(limit).pluck('id')) as string[];
}

/**
 * Deliveries retrying whose next attempt is overdue by more than the longest backoff (`lastAttemptBefore`): their
 * job is gone (Redis lost it, or BullMQ gave it up as stalled without running its handler), so no attempt will
 * come. FAILED with that reason (issue #38: it then needs attention) rather than PENDING forever. Their ids.
 */
export async function failInterruptedDeliveries(db: Db, lastAttemptBefore: Date, limit: number): Promise<string[]> {
  const ids = db('webhook_deliveries')
    .where({ status: 'PENDING' })
    .where('attempts', '>', 0)
    .where('last_attempt_at', '<', lastAttemptBefore)
    .orderBy('last_attempt_at')
    .limit(limit)
    .select('id');
  return (await db('webhook_deliveries')
    .whereIn('id', ids)
    .where({ status: 'PENDING' })
    .update({ status: 'FAILED', last_error: db.raw(`left('interrupted: no attempt since the last one (' || coalesce(last_error, '') || '); its job was lost', 500)`) })
    .returning('id')
    .then((rows: { id: string }[]) => rows.map((r) => r.id))) as string[];
}

/** FAILED deliveries no operator has let be yet (issue #38: they need attention). */
const failedUnattended = (db: Db) => db('webhook_deliveries').where({ status: 'FAILED' }).whereNull('given_up_at');

export async function countFailedDeliveries(db: Db): Promise<number> {
  const row = (await failedUnattended(db).count({ n: '*' }).first()) as { n: string | number } | undefined;
  return Number(row?.n ?? 0);
}

export async function listFailedDeliveries(db: Db, limit: number): Promise<{ id: string; accountId: string; cause: string; since: Date }[]> {
  const rows = (await failedUnattended(db)
    .from('webhook_deliveries as d')
    .join('webhook_endpoints as en', 'en.id', 'd.endpoint_id')
    .orderBy('d.last_attempt_at')
    .limit(limit)
    .select('d.id', 'en.account_id', 'd.attempts', 'd.last_status_code', 'd.last_error', 'd.last_attempt_at', 'd.created_at')) as (Pick<
    WebhookDeliveryRow,
    'id' | 'attempts' | 'last_status_code' | 'last_error' | 'last_attempt_at' | 'created_at'
  > & { account_id: string })[];
  return rows.map((r) => ({
    id: r.id,
    accountId: r.account_id,
    cause: `${r.attempts} attempt(s); last: ${r.last_status_code === null ? '' : `HTTP ${r.last_status_code} `}${r.last_error ?? ''}`.trim(),
    since: r.last_attempt_at ?? r.created_at,
  }));
}

/** A FAILED delivery (not given up, endpoint not deleted) back to PENDING with no attempt; the caller queues its job. False when it is not one. */
export async function reopenFailedDelivery(db: Db, id: string): Promise<boolean> {
  const live = db('webhook_endpoints').whereNull('deleted_at').select('id');
  const changed = await failedUnattended(db).where({ id }).whereIn('endpoint_id', live).update({ status: 'PENDING', attempts: 0 });
  return changed === 1;
}

/** The operator lets a FAILED delivery be: it stays FAILED in the endpoint's log and leaves the attention list. */
export async function giveUpFailedDelivery(db: Db, id: string): Promise<boolean> {
  const changed = await failedUnattended(db).where({ id }).update({ given_up_at: db.fn.now() });
  return changed === 1;
}

export interface DeliveryToSend {
  delivery: WebhookDeliveryRow;
  payload: WebhookEventPayload;
  url: string;
  secretEncrypted: Buffer;
  endpointDeleted: boolean;
}

export async function deliveryToSend(db: Db, id: string): Promise<DeliveryToSend | undefined> {
  const row = (await db('webhook_deliveries as d')
    .join('webhook_events as ev', 'ev.id', 'd.event_id')
    .join('webhook_endpoints as en', 'en.id', 'd.endpoint_id')
    .where('d.id', id)
    .first('d.*', 'ev.payload', 'en.url', 'en.secret_encrypted', 'en.deleted_at as endpoint_deleted_at')) as
    (WebhookDeliveryRow & { payload: WebhookEventPayload; url: string; secret_encrypted: Buffer; endpoint_deleted_at: Date | null }) | undefined;
  if (!row) return undefined;
  const { payload, url, secret_encrypted: secretEncrypted, endpoint_deleted_at: deletedAt, ...delivery } = row;
  return { delivery, payload, url, secretEncrypted, endpointDeleted: deletedAt !== null };
}

/** One attempt's outcome; `final` ends a failed delivery (no retry left). */
export async function recordAttempt(
  db: Db,
  id: string,
  outcome: { delivered: true; statusCode: number } | { delivered: false; statusCode?: number; error: string; final: boolean },
): Promise<void> {
  await db('webhook_deliveries')
    .where({ id })
    .whereNot({ status: 'DELIVERED' })
    .update({
      attempts: db.raw('attempts + 1'),
      last_attempt_at: db.fn.now(),
      last_status_code: outcome.statusCode ?? null,
      last_error: outcome.delivered ? null : outcome.error.slice(0, 500),
      status: outcome.delivered ? 'DELIVERED' : outcome.final ? 'FAILED' : 'PENDING',
      delivered_at: outcome.delivered ? db.fn.now() : null,
    });
}

/** An endpoint's delivery log, newest first, with each event's type and id. */
export async function listDeliveries(db: Db, endpointId: string, page: PageRequest): Promise<{ rows: (WebhookDeliveryRow & { event_type: WebhookEventType })[]; total: number }> {
  const [rows, count] = await Promise.all([
    db('webhook_deliveries as d')
      .join('webhook_events as ev', 'ev.id', 'd.event_id')
      .where('d.endpoint_id', endpointId)
      .orderBy([
        { column: 'd.created_at', order: 'desc' },
        { column: 'd.id', order: 'desc' },
      ])
      .offset(page.page * page.size)
      .limit(page.size)
      .select('d.*', 'ev.type as event_type'),
    db('webhook_deliveries').where({ endpoint_id: endpointId }).count({ n: '*' }).first(),
  ]);
  return { rows: rows as (WebhookDeliveryRow & { event_type: WebhookEventType })[], total: Number((count as { n: string } | undefined)?.n ?? 0) };
}
