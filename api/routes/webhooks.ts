import { boundTo, encrypt, encryptionKeyring } from '../../shared/platform/crypto/encrypt-at-rest.js';
import { newId } from '../../shared/platform/ids.js';
import { AppError } from '../../shared/platform/errors.js';
import { pageOf } from '../../shared/platform/pagination.js';
import { createEndpoint, deleteEndpoint, findEndpoint, listDeliveries, listEndpoints } from '../../shared/repositories/webhooks.js';
import { createEndpointRequestSchema } from '../contract/webhooks/endpoint-schema.js';
import { checkEndpointUrl } from '../../shared/webhooks/check-endpoint-url.js';
import { newWebhookSecret } from '../../shared/webhooks/sign-webhook.js';
import { deliveryView, endpointView } from '../contract/webhooks/webhook-views.js';
import type { ApiDeps } from '../deps.js';
import { bearerRule, type BearerGrant } from '../access/access-rules.js';
import { errorResponse, json } from '../routing/openapi-parts.js';
import { pagedQuery } from '../routing/request-query.js';
import { jsonRequest } from '../routing/request-body.js';
import { defineRoute } from '../routing/route.js';

const PATH = '/v1/webhooks/endpoints';
const notFound = () => new AppError(404, 'webhook_endpoint_not_found', 'No such webhook endpoint in this account.');

async function endpointOf(deps: ApiDeps, ctx: { state: BearerGrant; params: { endpointId: string } }) {
  const endpoint = await findEndpoint(deps.db, ctx.state.accountId, ctx.params.endpointId);
  if (!endpoint) throw notFound();
  return endpoint;
}

/** /v1/webhooks/endpoints: where an account's events are delivered, and each endpoint's delivery log (bearer token). */
export const webhookRoutes = [
  defineRoute({
    method: 'post',
    path: PATH,
    access: bearerRule,
    body: jsonRequest(createEndpointRequestSchema),
    operationId: 'createWebhookEndpoint',
    summary: "Register an endpoint for the account's events; the answer carries the signing secret, once",
    requestBody: { required: true, content: json('WebhookEndpointRequest') },
    responses: {
      201: { description: 'The endpoint with `secret`', content: json('WebhookEndpoint') },
      400: errorResponse('Invalid URL (https in production, no credentials, no private addresses) or unknown event type'),
      401: errorResponse('Token invalid, expired or revoked'),
    },
    handle: (deps) => async (ctx) => {
      const request = ctx.state.body;
      const refused = checkEndpointUrl(request.url, deps.config.env === 'production', deps.config.webhookAllowPrivate);
      if (refused) throw new AppError(400, 'validation_failed', 'The endpoint has invalid fields.', { details: [refused] });
      const secret = newWebhookSecret();
      // The id is chosen first: the secret is encrypted bound to it (GCM associated data).
      const id = newId('webhookEndpoint');
      const row = await createEndpoint(deps.db, ctx.state.accountId, {
        id,
        url: request.url,
        events: request.events ?? [],
        description: request.description ?? null,
        secretEncrypted: encrypt(Buffer.from(secret, 'utf8'), encryptionKeyring(deps.config), boundTo.webhookSecret(id)),
      });
      ctx.status = 201;
      ctx.body = endpointView(row, secret);
    },
  }),
  defineRoute({
    method: 'get',
    path: PATH,
    access: bearerRule,
    operationId: 'listWebhookEndpoints',
    summary: "The account's endpoints (`items`), without secrets",
    responses: { 200: { description: 'The endpoints, without secrets', content: json('WebhookEndpointList') } },
    handle: (deps) => async (ctx) => {
      ctx.body = { items: (await listEndpoints(deps.db, ctx.state.accountId)).map((row) => endpointView(row)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: `${PATH}/{endpointId}`,
    access: bearerRule,
    operationId: 'getWebhookEndpoint',
    summary: 'One endpoint',
    responses: {
      200: { description: 'The endpoint', content: json('WebhookEndpoint') },
      404: errorResponse('No such endpoint in the account'),
    },
    handle: (deps) => async (ctx) => {
      ctx.body = endpointView(await endpointOf(deps, ctx));
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${PATH}/{endpointId}`,
    access: bearerRule,
    operationId: 'deleteWebhookEndpoint',
    summary: 'Stop delivering to this endpoint (pending deliveries end as FAILED)',
    responses: { 204: { description: 'Deleted' }, 404: errorResponse('No such endpoint in the account') },
    handle: (deps) => async (ctx) => {
      if (!(await deleteEndpoint(deps.db, ctx.state.accountId, ctx.params.endpointId))) throw notFound();
      ctx.status = 204;
    },
  }),
  defineRoute({
    method: 'get',
    path: `${PATH}/{endpointId}/deliveries`,
    access: bearerRule,
    operationId: 'listWebhookDeliveries',
    summary: "The endpoint's delivery log, newest first (page envelope): event, status, attempts, last answer",
    query: pagedQuery,
    responses: {
      200: { description: 'Page of deliveries', content: json('WebhookDeliveryPage') },
      400: errorResponse('Bad paging'),
      404: errorResponse('No such endpoint in the account'),
    },
    handle: (deps) => async (ctx) => {
      const endpoint = await endpointOf(deps, ctx);
      const page = ctx.state.query;
      const { rows, total } = await listDeliveries(deps.db, endpoint.id, page);
      ctx.body = pageOf(rows.map(deliveryView), total, page);
    },
  }),
];
