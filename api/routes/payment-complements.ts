import { AppError } from '../../shared/platform/errors.js';
import { createPaymentComplementSchema } from '../contract/payment-complements/payment-complement-schema.js';
import { paymentComplementView } from '../contract/payment-complements/payment-complement-view.js';
import { findPaymentComplement } from '../../shared/repositories/payment-complements.js';
import { createPaymentComplement } from '../invoices/create-payment-complement.js';
import { apiKeyOrBearerRule, credentialsScope } from '../access/access-rules.js';
import { errorResponse, json, optionalIdempotencyKey } from '../routing/openapi-parts.js';
import { jsonRequest } from '../routing/request-body.js';
import { defineRoute } from '../routing/route.js';
import type { ApiDeps } from '../deps.js';

const PREFIX = '/v1/qrs/invoices/payment-complements';
const linksOf = (deps: ApiDeps) => ({ publicBaseUrl: deps.config.publicBaseUrl, urlSigningKey: deps.config.urlSigningKey });

/** Payment complements (CFDI type P, Pagos 2.0) for the merchant's API key or its account's Bearer token. */
export const paymentComplementRoutes = [
  defineRoute({
    method: 'post',
    path: PREFIX,
    access: apiKeyOrBearerRule,
    body: jsonRequest(createPaymentComplementSchema),
    operationId: 'createPaymentComplement',
    summary: 'Record a payment received for PPD invoices: a CFDI type P with Pagos 2.0 (installment and balances computed here); stamped by the worker',
    parameters: [optionalIdempotencyKey('Optional: the same key and body again answers the complement it recorded (Idempotent-Replayed: true)')],
    requestBody: { required: true, content: json('PaymentComplementRequest') },
    responses: {
      202: { description: 'Recorded (STAMPING), or replayed; follow it at the Location', content: json('PaymentComplement') },
      400: errorResponse('Invalid body or Idempotency-Key'),
      409: errorResponse("balance_changed: the installment or previous_balance asserted is not the invoice's now; idempotency_key_reused: the key was used with another body"),
      422: errorResponse(
        "payment_complement_invalid: unknown or other merchant's invoice, not an invoice, not PPD, not valid (cancelled), other issuer/receptor, more than the balance, more than the payment, form 99, currency XXX, exchange rate, date in the future or before the invoice",
      ),
    },
    handle: (deps) => async (ctx) => {
      const request = ctx.state.body;
      const scope = credentialsScope(ctx.state);
      const answer = await createPaymentComplement(deps, scope, request, ctx.get('Idempotency-Key') || undefined);
      const found = await findPaymentComplement(deps.db, answer.id, scope);
      // Recorded for the merchant of the first invoice, which these credentials just found.
      if (!found) throw new Error(`payment complement ${answer.id} vanished`);
      ctx.status = 202;
      ctx.set('Location', `${PREFIX}/${answer.id}`);
      if (answer.replayed) ctx.set('Idempotent-Replayed', 'true');
      ctx.body = paymentComplementView(found.complement, found.related, linksOf(deps));
    },
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/{paymentComplementId}`,
    access: apiKeyOrBearerRule,
    operationId: 'getPaymentComplement',
    summary: 'A payment complement: status, the payment, each invoice paid with its installment and balances, and once stamped its UUID and file links',
    responses: {
      200: { description: 'The payment complement', content: json('PaymentComplement') },
      404: errorResponse('No such payment complement for these credentials'),
    },
    handle: (deps) => async (ctx) => {
      const found = await findPaymentComplement(deps.db, ctx.params.paymentComplementId, credentialsScope(ctx.state));
      if (!found) throw new AppError(404, 'payment_complement_not_found', 'No such payment complement for these credentials.');
      ctx.body = paymentComplementView(found.complement, found.related, linksOf(deps));
    },
  }),
];
