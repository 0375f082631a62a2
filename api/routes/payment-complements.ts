import type { Router } from '@koa/router';
import { AppError } from '../../shared/platform/errors.js';
import { createPaymentComplementSchema } from '../contract/payment-complements/payment-complement-schema.js';
import { paymentComplementView } from '../contract/payment-complements/payment-complement-view.js';
import { findPaymentComplement } from '../../shared/repositories/payment-complements.js';
import { validator } from '../../shared/platform/validation/ajv.js';
import type { AppContext, AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import type { InvoiceScope } from '../invoices/cancel-invoice.js';
import { createPaymentComplement } from '../invoices/create-payment-complement.js';
import { jsonBody } from '../middleware/json-body.js';
import { managementAccess } from '../access/management-access.js';
import { apiRouter, routesWith } from '../routing/api-router.js';

const PREFIX = '/v1/qrs/invoices/payment-complements';
const validateCreate = validator(createPaymentComplementSchema);

/** Payment complements (CFDI type P, Pagos 2.0) for the merchant's API key or its account's Bearer token. */
export function paymentComplementRoutes(deps: ApiDeps): Router<AppState> {
  const router = apiRouter(PREFIX);
  const routes = routesWith(router, managementAccess(deps).apiKeyOrBearer);
  const scopeOf = (ctx: AppContext): InvoiceScope => (ctx.state.apiKey ? { merchantId: ctx.state.apiKey.merchantId } : { accountId: ctx.state.accountId! });
  const links = { publicBaseUrl: deps.config.publicBaseUrl, urlSigningKey: deps.config.urlSigningKey };
  const notFound = () => new AppError(404, 'payment_complement_not_found', 'No such payment complement for these credentials.');

  routes.post('/', jsonBody(deps.config.jsonBodyLimit), async (ctx) => {
    const request = validateCreate(ctx.request.body);
    const answer = await createPaymentComplement(deps, scopeOf(ctx), request, ctx.get('Idempotency-Key') || undefined);
    const found = await findPaymentComplement(deps.db, answer.id, scopeOf(ctx));
    // Recorded for the merchant of the first invoice, which these credentials just found.
    if (!found) throw new Error(`payment complement ${answer.id} vanished`);
    ctx.status = 202;
    ctx.set('Location', `${PREFIX}/${answer.id}`);
    if (answer.replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.body = paymentComplementView(found.complement, found.related, links);
  });

  routes.get('/:paymentComplementId', async (ctx) => {
    const found = await findPaymentComplement(deps.db, ctx.params.paymentComplementId ?? '', scopeOf(ctx));
    if (!found) throw notFound();
    ctx.body = paymentComplementView(found.complement, found.related, links);
  });

  return router;
}
