import { createCreditNoteSchema } from '../contract/credit-notes/credit-note-schema.js';
import { creditNoteView } from '../contract/credit-notes/credit-note-view.js';
import { AppError } from '../../shared/platform/errors.js';
import { findCreditNote } from '../../shared/repositories/credit-notes.js';
import type { ApiDeps } from '../deps.js';
import { createCreditNote } from '../invoices/create-credit-note.js';
import { apiKeyOrBearerRule, credentialsScope } from '../access/access-rules.js';
import { errorResponse, json } from '../routing/openapi-parts.js';
import { jsonRequest } from '../routing/request-body.js';
import { defineRoute } from '../routing/route.js';

const linksOf = (deps: ApiDeps) => ({ publicBaseUrl: deps.config.publicBaseUrl, urlSigningKey: deps.config.urlSigningKey });

/** Credit notes (CFDI type E) for the merchant's API key or its account's Bearer token. */
export const creditNoteRoutes = [
  defineRoute({
    method: 'post',
    path: '/v1/qrs/invoices/credit-notes',
    access: apiKeyOrBearerRule,
    body: jsonRequest(createCreditNoteSchema),
    operationId: 'createCreditNote',
    summary: 'Issue a credit note (CFDI type E, TipoRelacion 01) for parts of stamped invoices; stamped by the worker',
    requestBody: { required: true, content: json('CreditNoteRequest') },
    responses: {
      202: { description: 'Recorded (STAMPING); follow it at the Location', content: json('CreditNote') },
      400: errorResponse('Invalid body'),
      422: errorResponse("credit_note_invalid: unknown or other merchant's invoice, not an invoice, different issuer/receptor/currency, more than is left to credit, form 99"),
    },
    handle: (deps) => async (ctx) => {
      const request = ctx.state.body;
      const created = await createCreditNote(deps, credentialsScope(ctx.state), request);
      ctx.status = 202;
      ctx.set('Location', `/v1/qrs/invoices/credit-notes/${created.creditNote.id}`);
      ctx.body = creditNoteView(created.creditNote, created.related, linksOf(deps));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/qrs/invoices/credit-notes/{creditNoteId}',
    access: apiKeyOrBearerRule,
    operationId: 'getCreditNote',
    summary: 'A credit note: status, what it credits, and once stamped its UUID and file links',
    responses: {
      200: { description: 'The credit note', content: json('CreditNote') },
      404: errorResponse('No such credit note for these credentials'),
    },
    handle: (deps) => async (ctx) => {
      const found = await findCreditNote(deps.db, ctx.params.creditNoteId, credentialsScope(ctx.state));
      if (!found) throw new AppError(404, 'credit_note_not_found', 'No such credit note for these credentials.');
      ctx.body = creditNoteView(found.creditNote, found.related, linksOf(deps));
    },
  }),
];
