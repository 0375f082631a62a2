/**
 * The machine-readable contract (OpenAPI 3.1), built from the very schema objects ajv validates with,
 * so the document cannot drift from what the API accepts. Served at GET /openapi.json.
 */
import { qrCreateRequestSchema } from '../shared/qr/qr-request-schema.js';

const errorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'details', 'request_id'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        details: {
          type: 'array',
          items: { type: 'object', properties: { field: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } } },
        },
        request_id: { type: 'string' },
      },
    },
  },
} as const;

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const apiKey = [{ ApiKey: [] }];

export function openApiDocument(publicBaseUrl: string) {
  return {
    openapi: '3.1.0',
    info: { title: 'Self-invoicing QR service', version: '1.0.0' },
    servers: [{ url: publicBaseUrl }],
    components: {
      securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      schemas: { QrCreateRequest: qrCreateRequestSchema, Error: errorSchema },
    },
    paths: {
      '/v1/qrs': {
        post: {
          summary: 'Generate a self-invoicing QR for a sale',
          security: apiKey,
          parameters: [
            { name: 'X-TIME-ZONE', in: 'header', required: true, schema: { type: 'string' }, description: 'IANA time zone, e.g. America/Mexico_City' },
            { name: 'idempotency-key', in: 'header', required: true, schema: { type: 'string', format: 'uuid' } },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/QrCreateRequest' } } } },
          responses: {
            201: { description: 'The QR transaction (also for an idempotent replay, with Idempotent-Replayed: true)' },
            400: errorResponse('Invalid or missing fields or headers, malformed JSON'),
            401: errorResponse('API key invalid or missing'),
            404: errorResponse('store_uid not found'),
            409: errorResponse('idempotency-key reused with a different body'),
            413: errorResponse('Body over the size limit'),
            415: errorResponse('Content-Type is not application/json'),
            422: errorResponse('Business rule: merchant inactive, CSD missing or expired, SAT catalog or arithmetic rule'),
            500: errorResponse('QR rendering failed; nothing was written'),
            503: errorResponse('Redis or the render worker unavailable; nothing was written'),
          },
        },
      },
      '/v1/qrs/{qrId}': {
        get: {
          summary: 'Read a QR transaction',
          security: apiKey,
          parameters: [{ name: 'qrId', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            200: { description: 'The full QR transaction' },
            401: errorResponse('API key invalid or missing'),
            404: errorResponse('Transaction not found'),
          },
        },
      },
      '/v1/public/qrs/{qrId}/image.png': {
        get: {
          summary: 'The QR image, through a signed URL (qr_url)',
          parameters: [
            { name: 'qrId', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'exp', in: 'query', required: true, schema: { type: 'integer' } },
            { name: 'sig', in: 'query', required: true, schema: { type: 'string' } },
          ],
          responses: {
            200: { description: 'PNG', content: { 'image/png': {} } },
            403: errorResponse('Signature does not match'),
            410: errorResponse('URL expired'),
          },
        },
      },
      '/health': { get: { summary: 'PostgreSQL, Redis and queue state', responses: { 200: { description: 'All up' }, 503: { description: 'A dependency is down' } } } },
    },
  };
}
