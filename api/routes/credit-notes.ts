import type { Router } from '@koa/router';
import { createCreditNoteSchema } from '../contract/credit-notes/credit-note-schema.js';
import { creditNoteView } from '../contract/credit-notes/credit-note-view.js';
import { AppError } from '../../shared/platform/errors.js';
import { findCreditNote } from '../../shared/repositories/credit-notes.js';
import { validator } from '../../shared/platform/validation/ajv.js';
import type { AppContext, AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { createCreditNote } from '../invoices/create-credit-note.js';
import type { InvoiceScope } from '../invoices/cancel-invoice.js';
import { jsonBody } from '../middleware/json-body.js';
import { managementAccess } from '../access/management-access.js';
import { apiRouter, routesWith } from '../routing/api-router.js';

const validateCreate = validator(createCreditNoteSchema);

/** Credit notes (CFDI type E) for the merchant's API key or its account's Bearer token. */
export function creditNoteRoutes(deps: ApiDeps): Router<AppState> {
  const router = apiRouter('/v1/qrs/invoices/credit-notes');
  const routes = routesWith(router, managementAccess(deps).apiKeyOrBearer);
  const scopeOf = (ctx: AppContext): InvoiceScope => (ctx.state.apiKey ? { merchantId: ctx.state.apiKey.merchantId } : { accountId: ctx.state.accountId! });
  const links = { publicBaseUrl: deps.config.publicBaseUrl, urlSigningKey: deps.config.urlSigningKey };

  routes.post('/', jsonBody(deps.config.jsonBodyLimit), async (ctx) => {
    const request = validateCreate(ctx.request.body);
    const created = await createCreditNote(deps, scopeOf(ctx), request);
    ctx.status = 202;
    ctx.set('Location', `/v1/qrs/invoices/credit-notes/${created.creditNote.id}`);
    ctx.body = creditNoteView(created.creditNote, created.related, links);
  });

  routes.get('/:creditNoteId', async (ctx) => {
    const found = await findCreditNote(deps.db, ctx.params.creditNoteId ?? '', scopeOf(ctx));
    if (!found) throw new AppError(404, 'credit_note_not_found', 'No such credit note for these credentials.');
    ctx.body = creditNoteView(found.creditNote, found.related, links);
  });

  return router;
}
