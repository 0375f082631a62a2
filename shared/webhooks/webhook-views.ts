import type { WebhookDeliveryRow, WebhookEndpointRow } from '../repositories/webhooks.js';

/** WebhookEndpoint (the secret only in the answer that creates it). */
export function endpointView(row: WebhookEndpointRow, secret?: string) {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    created_at: row.created_at.toISOString(),
    ...(secret ? { secret } : {}),
  };
}

/** One line of an endpoint's delivery log. */
export function deliveryView(row: WebhookDeliveryRow & { event_type: string }) {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    last_attempt_at: row.last_attempt_at?.toISOString() ?? null,
    delivered_at: row.delivered_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}
