import type { FromSchema } from 'json-schema-to-ts';
import { isIP } from 'node:net';
import type { ErrorDetail } from '../platform/errors.js';
import { WEBHOOK_EVENT_TYPES } from './event-types.js';
import { isLocalName, isPublicAddress } from './private-address.js';

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

/**
 * An endpoint URL the service will POST signed events to. In production: https only. Never credentials in the
 * URL. Unless private targets are allowed (`WEBHOOK_ALLOW_PRIVATE`, on outside production): no loopback,
 * private, link-local or other special address written as such, in any form the URL parser accepts
 * (`2130706433`, `0x7f.1`, `017700000001`, `[::ffff:127.0.0.1]` all parse to a loopback address), and no
 * `localhost` names. Names that resolve to such addresses are refused at delivery time (webhook-client.ts).
 */
export function checkEndpointUrl(raw: string, production: boolean, allowPrivate = !production): ErrorDetail | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { field: 'url', code: 'invalid_format', message: 'url must be an absolute URL.' };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && !production)) {
    return { field: 'url', code: 'invalid_format', message: production ? 'url must use https.' : 'url must use http or https.' };
  }
  if (url.username || url.password) return { field: 'url', code: 'invalid_format', message: 'url must not carry credentials.' };
  if (!allowPrivate) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const local = isLocalName(host) || (isIP(host) !== 0 && !isPublicAddress(host));
    if (local) return { field: 'url', code: 'not_allowed', message: 'url must be reachable on the public internet.' };
  }
  return undefined;
}
