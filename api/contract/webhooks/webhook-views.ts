import type { FromSchema } from 'json-schema-to-ts';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../../shared/repositories/webhooks.js';
import type { webhookDeliverySchema, webhookEndpointSchema } from './endpoint-schema.js';
import type { WebhookEventType } from '../../../shared/webhooks/event-types.js';

// Typed from the schemas the OpenAPI document publishes: the compiler holds the views to them.
export type WebhookEndpoint = FromSchema<typeof webhookEndpointSchema>;
export type WebhookDelivery = FromSchema<typeof webhookDeliverySchema>;

/** WebhookEndpoint (the secret only in the answer that creates it). */
export function endpointView(row: WebhookEndpointRow, secret?: string): WebhookEndpoint {
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
export function deliveryView(row: WebhookDeliveryRow & { event_type: WebhookEventType }): WebhookDelivery {
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
