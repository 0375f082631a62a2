import { tokenRequestSchema } from '../contract/auth/token-request-schema.js';
import { AppError } from '../../shared/platform/errors.js';
import { createAccessToken } from '../../shared/repositories/access-tokens.js';
import { findAccountByClientCredentials } from '../../shared/repositories/accounts.js';
import { clientCredentialsRule } from '../access/access-rules.js';
import { errorResponse, json } from '../routing/openapi-parts.js';
import { jsonRequest } from '../routing/request-body.js';
import { defineRoute } from '../routing/route.js';

/** client_secret_basic: `Authorization: Basic base64(client_id:client_secret)` (RFC 6749 §2.3.1). */
function basicCredentials(header: string): { id: string; secret: string } | undefined {
  const encoded = /^Basic +(\S+)$/i.exec(header)?.[1];
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) return undefined;
  return { id: formDecoded(decoded.slice(0, colon)), secret: formDecoded(decoded.slice(colon + 1)) };
}

/** RFC 6749 §2.3.1: both are form-urlencoded before Basic; a broken %-escape is a malformed request (400). */
function formDecoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new AppError(400, 'validation_failed', 'The HTTP Basic credentials are not validly encoded.', {
      details: [
        {
          field: 'Authorization',
          code: 'invalid_format',
          message: 'client_id and client_secret in HTTP Basic must be form-urlencoded UTF-8 (RFC 6749 §2.3.1): a "%" must start a valid escape.',
        },
      ],
    });
  }
}

/** POST /v1/auth/token: OAuth 2.0 client credentials for the management API's bearer tokens. */
export const authRoutes = [
  defineRoute({
    method: 'post',
    path: '/v1/auth/token',
    access: clientCredentialsRule,
    body: jsonRequest(tokenRequestSchema, { urlencoded: true }),
    operationId: 'createAccessToken',
    summary: 'OAuth 2.0 client credentials: a bearer access token for the management API',
    requestBody: {
      required: true,
      content: { ...json('TokenRequest'), 'application/x-www-form-urlencoded': { schema: { $ref: '#/components/schemas/TokenRequest' } } },
    },
    responses: {
      200: { description: 'The token (Cache-Control: no-store)', content: json('TokenResponse') },
      400: errorResponse('Missing credentials or a grant type other than client_credentials'),
      401: errorResponse('Unknown client or wrong secret (invalid_client)'),
    },
    handle: (deps) => async (ctx) => {
      const request = ctx.state.body;
      if (request.grant_type !== 'client_credentials') {
        throw new AppError(400, 'unsupported_grant_type', 'Only grant_type=client_credentials is supported.', {
          details: [{ field: 'grant_type', code: 'invalid_value', message: 'Use client_credentials.' }],
        });
      }
      const basic = basicCredentials(ctx.get('Authorization'));
      const id = basic?.id ?? request.client_id;
      const secret = basic?.secret ?? request.client_secret;
      if (!id || !secret) {
        throw new AppError(400, 'validation_failed', 'Client credentials are required (form/JSON fields or HTTP Basic).', {
          details: [
            ...(id ? [] : [{ field: 'client_id', code: 'required', message: 'client_id is required.' }]),
            ...(secret ? [] : [{ field: 'client_secret', code: 'required', message: 'client_secret is required.' }]),
          ],
        });
      }
      const account = await findAccountByClientCredentials(deps.db, id, secret);
      if (!account) {
        throw new AppError(401, 'invalid_client', 'Unknown client_id or wrong client_secret.', { headers: { 'WWW-Authenticate': 'Basic realm="token"' } });
      }
      const issued = await createAccessToken(deps.db, account.accountId, deps.config.accessTokenTtlSeconds);
      // RFC 6749 §5.1: token responses must not be cached.
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Pragma', 'no-cache');
      ctx.body = { access_token: issued.token, token_type: 'Bearer', expires_in: deps.config.accessTokenTtlSeconds };
    },
  }),
];
