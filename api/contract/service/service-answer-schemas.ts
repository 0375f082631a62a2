/** JSON Schemas of the service's own answers, for the OpenAPI document: GET /health and GET /. */
import { QUEUES } from '../../../shared/platform/jobs.js';

const check = {
  anyOf: [
    { type: 'object', additionalProperties: false, required: ['ok', 'latency_ms'], properties: { ok: { const: true }, latency_ms: { type: 'number' } } },
    { type: 'object', additionalProperties: false, required: ['ok', 'error'], properties: { ok: { const: false }, error: { type: 'string' } } },
  ],
} as const;

const jobCounts = {
  type: 'object',
  additionalProperties: { type: 'integer', minimum: 0 },
  description: 'Jobs waiting, active, delayed, failed and completed (kept)',
} as const;

/** GET /health (api/routes/health.ts): 200 when PostgreSQL and Redis answer, 503 otherwise. */
export const healthSchema = {
  $id: 'Health',
  type: 'object',
  additionalProperties: false,
  required: ['status', 'postgres', 'redis', 'queues'],
  properties: {
    status: { type: 'string', enum: ['ok', 'unavailable'] },
    postgres: check,
    redis: check,
    queues: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(Object.values(QUEUES).map((name) => [name, jobCounts])),
      description: 'Depth of every queue; empty when Redis is down',
    },
  },
} as const;

/** GET / for clients (api/routes/openapi.ts): where the documentation is. */
export const serviceLinksSchema = {
  $id: 'ServiceLinks',
  type: 'object',
  additionalProperties: false,
  required: ['service', 'docs', 'openapi', 'health'],
  properties: { service: { type: 'string' }, docs: { type: 'string' }, openapi: { type: 'string' }, health: { type: 'string' } },
} as const;
