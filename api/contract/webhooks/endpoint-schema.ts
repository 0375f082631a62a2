import type { FromSchema } from 'json-schema-to-ts';
import { WEBHOOK_EVENT_TYPES } from '../../../shared/webhooks/event-types.js';

/** POST /v1/webhooks/endpoints. */
export const createEndpointRequestSchema = {
  $id: 'WebhookEndpointRequest',
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2048, description: 'HTTPS URL that receives the events (HTTP only outside production).' },
    events: {
      type: 'array',
      uniqueItems: true,
      maxItems: WEBHOOK_EVENT_TYPES.length,
      items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
      description: 'Event types to receive; absent or empty: all.',
    },
    description: { type: 'string', maxLength: 200 },
  },
} as const;

export type CreateEndpointRequest = FromSchema<typeof createEndpointRequestSchema>;

/** An endpoint as the API answers it (webhook-views.ts builds it). */
export const webhookEndpointSchema = {
  $id: 'WebhookEndpoint',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'url', 'events', 'description', 'created_at'],
  properties: {
    id: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'array', items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] }, description: 'Event types it receives; empty: all' },
    description: { type: ['string', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
    secret: { type: 'string', description: 'Only in the answer that creates the endpoint: the signing secret (whsec_…), shown once.' },
  },
} as const;

/** One line of an endpoint's delivery log (webhook-views.ts builds it). */
export const webhookDeliverySchema = {
  $id: 'WebhookDelivery',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'event_id', 'event_type', 'status', 'attempts', 'last_status_code', 'last_error', 'last_attempt_at', 'delivered_at', 'created_at'],
  properties: {
    id: { type: 'string' },
    event_id: { type: 'string' },
    event_type: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
    status: { type: 'string', enum: ['PENDING', 'DELIVERED', 'FAILED'], description: 'FAILED: every attempt failed, or the endpoint was deleted' },
    attempts: { type: 'integer', minimum: 0 },
    last_status_code: { type: ['integer', 'null'], description: "The endpoint's last HTTP status" },
    last_error: { type: ['string', 'null'] },
    last_attempt_at: { type: ['string', 'null'], format: 'date-time' },
    delivered_at: { type: ['string', 'null'], format: 'date-time' },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;
