/** POST /v1/auth/token (OAuth 2.0 client credentials, RFC 6749 §4.4), JSON or form body. */
import type { FromSchema } from 'json-schema-to-ts';
export type TokenRequest = FromSchema<typeof tokenRequestSchema>;

export const tokenRequestSchema = {
  $id: 'TokenRequest',
  type: 'object',
  additionalProperties: false,
  required: ['grant_type'],
  properties: {
    grant_type: { type: 'string', maxLength: 100 },
    client_id: { type: 'string', minLength: 1, maxLength: 200 },
    client_secret: { type: 'string', minLength: 1, maxLength: 200 },
    scope: { type: 'string', maxLength: 500 },
  },
} as const;

export const tokenResponseSchema = {
  type: 'object',
  required: ['access_token', 'token_type', 'expires_in'],
  properties: {
    access_token: { type: 'string' },
    token_type: { type: 'string', const: 'Bearer' },
    expires_in: { type: 'integer', description: 'seconds' },
  },
} as const;
