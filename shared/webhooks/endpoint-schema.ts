import { isIP } from 'node:net';
import type { ErrorDetail } from '../errors.js';
import { WEBHOOK_EVENT_TYPES } from './event-types.js';

/** POST /v1/webhooks/endpoints. */
export const createEndpointRequestSchema = {
  $id: 'WebhookEndpointRequest',
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2048, description: 'HTTPS URL that receives the events (HTTP only outside production).' },
    events: {
      type: 'array', uniqueItems: true, maxItems: WEBHOOK_EVENT_TYPES.length, items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
      description: 'Event types to receive; absent or empty: all.',
    },
    description: { type: 'string', maxLength: 200 },
  },
} as const;

export interface CreateEndpointRequest {
  url: string;
  events?: string[];
  description?: string;
}

export const webhookEndpointSchema = {
  $id: 'WebhookEndpoint',
  type: 'object',
  required: ['id', 'url', 'events', 'description', 'created_at'],
  properties: {
    id: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'array', items: { type: 'string' } },
    description: { type: ['string', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
    secret: { type: 'string', description: 'Only in the answer that creates the endpoint: the signing secret (whsec_…), shown once.' },
  },
} as const;

const PRIVATE_V4 = [/^10\./, /^127\./, /^169\.254\./, /^192\.168\./, /^172\.(1[6-9]|2[0-9]|3[01])\./, /^0\./, /^100\.(6[4-9]|[7-9][0-9]|1[01][0-9]|12[0-7])\./];

/**
 * An endpoint URL the service will POST signed events to. In production: https only, no credentials in the
 * URL, and no loopback, private or link-local literal addresses (a merchant must not make the service call
 * its own network). Names that resolve to private addresses are not caught here (see README, "Webhooks").
 */
export function checkEndpointUrl(raw: string, production: boolean): ErrorDetail | undefined {
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
  if (production) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const local = host === 'localhost' || host.endsWith('.localhost')
      || (isIP(host) === 4 && PRIVATE_V4.some((range) => range.test(host)))
      || (isIP(host) === 6 && (host === '::1' || /^f[cd]/i.test(host) || /^fe80:/i.test(host) || host === '::'));
    if (local) return { field: 'url', code: 'not_allowed', message: 'url must be reachable on the public internet.' };
  }
  return undefined;
}
