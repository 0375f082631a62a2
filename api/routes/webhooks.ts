import type { Router } from '@koa/router';
import { boundTo, encrypt, encryptionKeyring } from '../../shared/platform/crypto/encrypt-at-rest.js';
import { newId } from '../../shared/platform/ids.js';
import { AppError } from '../../shared/platform/errors.js';
import { pageOf, parsePageRequest } from '../../shared/platform/pagination.js';
import { createEndpoint, deleteEndpoint, findEndpoint, listDeliveries, listEndpoints } from '../../shared/repositories/webhooks.js';
import { validator } from '../../shared/platform/validation/ajv.js';
import { createEndpointRequestSchema } from '../contract/webhooks/endpoint-schema.js';
import { checkEndpointUrl } from '../../shared/webhooks/check-endpoint-url.js';
import { newWebhookSecret } from '../../shared/webhooks/sign-webhook.js';
import { deliveryView, endpointView } from '../contract/webhooks/webhook-views.js';
import type { AppContext, AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { jsonBody } from '../middleware/json-body.js';
import { managementAccess } from '../access/management-access.js';
import { apiRouter, routesWith } from '../routing/api-router.js';

const validateCreate = validator(createEndpointRequestSchema);

/** /v1/webhooks/endpoints: where an account's events are delivered, and each endpoint's delivery log (bearer token). */
export function webhookRoutes(deps: ApiDeps): Router<AppState> {
  const router = apiRouter('/v1/webhooks/endpoints');
  const routes = routesWith(router, managementAccess(deps).bearer);

  const endpointOf = async (ctx: AppContext) => {
    const endpoint = await findEndpoint(deps.db, ctx.state.accountId!, ctx.params.endpointId ?? '');
    if (!endpoint) throw new AppError(404, 'webhook_endpoint_not_found', 'No such webhook endpoint in this account.');
    return endpoint;
  };

  routes.post('/', jsonBody(deps.config.jsonBodyLimit), async (ctx) => {
    const request = validateCreate(ctx.request.body);
    const refused = checkEndpointUrl(request.url, deps.config.env === 'production', deps.config.webhookAllowPrivate);
    if (refused) throw new AppError(400, 'validation_failed', 'The endpoint has invalid fields.', { details: [refused] });
    const secret = newWebhookSecret();
    // The id is chosen first: the secret is encrypted bound to it (GCM associated data).
    const id = newId('webhookEndpoint');
    const row = await createEndpoint(deps.db, ctx.state.accountId!, {
      id,
      url: request.url,
      events: request.events ?? [],
      description: request.description ?? null,
      secretEncrypted: encrypt(Buffer.from(secret, 'utf8'), encryptionKeyring(deps.config), boundTo.webhookSecret(id)),
    });
    ctx.status = 201;
    ctx.body = endpointView(row, secret);
  });

  routes.get('/', async (ctx) => {
    ctx.body = { items: (await listEndpoints(deps.db, ctx.state.accountId!)).map((row) => endpointView(row)) };
  });

  routes.get('/:endpointId', async (ctx) => {
    ctx.body = endpointView(await endpointOf(ctx));
  });

  routes.delete('/:endpointId', async (ctx) => {
    if (!(await deleteEndpoint(deps.db, ctx.state.accountId!, ctx.params.endpointId ?? ''))) {
      throw new AppError(404, 'webhook_endpoint_not_found', 'No such webhook endpoint in this account.');
    }
    ctx.status = 204;
  });

  routes.get('/:endpointId/deliveries', async (ctx) => {
    const endpoint = await endpointOf(ctx);
    const page = parsePageRequest(ctx.query);
    const { rows, total } = await listDeliveries(deps.db, endpoint.id, page);
    ctx.body = pageOf(rows.map(deliveryView), total, page);
  });

  return router;
}
