import type { Router } from '@koa/router';
import { AppError } from '../../shared/platform/errors.js';
import { createMerchantSchema, updateMerchantSchema, type UpdateMerchantRequest } from '../contract/merchants/merchant-schema.js';
import { merchantSummaryView, merchantView } from '../contract/merchants/merchant-view.js';
import { pageOf, parsePageRequest, queryText } from '../../shared/platform/pagination.js';
import { accountMerchant, issuerNotFound, merchantNotFound } from '../account-resources.js';
import { createApiKey, regenerateApiKey, type KeyMode } from '../../shared/repositories/api-keys.js';
import { findIssuer } from '../../shared/repositories/issuers.js';
import { principalsChanged } from '../../shared/platform/principal-generation.js';
import { insertMerchant, listMerchants, updateMerchant } from '../../shared/repositories/merchants.js';
import { validator } from '../../shared/platform/validation/ajv.js';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { jsonBody } from '../middleware/json-body.js';
import { multipartBody } from '../middleware/multipart-body.js';
import { invoiceModeView, saveInvoiceMode } from '../merchants/invoice-mode.js';
import { uploadLogos } from '../merchants/upload-logos.js';
import { checkInvoiceRules } from '../../shared/merchants/check-invoice-rules.js';
import { LOGO_LIMITS } from '../../shared/images/normalize-logo.js';
import { CSD_MAX_FILE_BYTES } from '../../shared/csd/check-csd.js';
import { findCsdSummary } from '../../shared/repositories/merchant-csds.js';
import { managementAccess } from '../access/management-access.js';
import { apiRouter, routesWith } from '../routing/api-router.js';

const validateCreate = validator(createMerchantSchema);
const validateUpdate = validator(updateMerchantSchema);

function refuseBadInvoiceRules(deps: ApiDeps, fields: UpdateMerchantRequest): void {
  const details = checkInvoiceRules(fields.invoiceRules, deps.catalogs);
  if (details.length > 0) throw new AppError(400, 'validation_failed', 'The invoicing rules name CFDI uses a sale cannot have.', { details });
}

/** /v1/qrs/merchants: points of sale, scoped to the bearer token's account. */
export function merchantRoutes(deps: ApiDeps): Router<AppState> {
  const router = apiRouter('/v1/qrs/merchants');
  const routes = routesWith(router, managementAccess(deps).bearer);
  const body = jsonBody(deps.config.jsonBodyLimit);

  routes.post('/', body, async (ctx) => {
    const accountId = ctx.state.accountId!;
    const { issuerId, ...fields } = validateCreate(ctx.request.body);
    refuseBadInvoiceRules(deps, fields);
    if (!(await findIssuer(deps.db, accountId, issuerId))) throw issuerNotFound(issuerId, 'issuerId');
    // A new point of sale can post QRs at once: its first (development) API key comes with it, shown once.
    const { row, apiKey } = await deps.db.transaction(async (trx) => {
      const created = await insertMerchant(trx, accountId, issuerId, fields);
      return { row: created, apiKey: await createApiKey(trx, created.id, 'development') };
    });
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { ...merchantView(row), apiKey };
  });

  routes.get('/', async (ctx) => {
    const accountId = ctx.state.accountId!;
    const page = parsePageRequest(ctx.query);
    const issuerId = queryText(ctx.query, 'issuerId');
    if (!issuerId) {
      throw new AppError(400, 'validation_failed', 'issuerId is required.', { details: [{ field: 'issuerId', code: 'required', message: 'issuerId is required.' }] });
    }
    if (!(await findIssuer(deps.db, accountId, issuerId))) throw issuerNotFound(issuerId, 'issuerId');
    const filter = queryText(ctx.query, 'filter');
    const { rows, total } = await listMerchants(deps.db, accountId, issuerId, filter, page);
    ctx.body = pageOf(rows.map(merchantSummaryView), total, page);
  });

  routes.get('/:merchantId', async (ctx) => {
    const row = await accountMerchant(deps, ctx);
    ctx.body = merchantView(row);
  });

  routes.put('/:merchantId', body, async (ctx) => {
    const raw = ctx.request.body as Record<string, unknown> | undefined;
    if (raw && typeof raw === 'object' && 'issuerId' in raw) {
      throw new AppError(400, 'validation_failed', 'A merchant cannot move to another issuer.', {
        details: [{ field: 'issuerId', code: 'not_updatable', message: 'issuerId is set at creation; create a new merchant under the other issuer.' }],
      });
    }
    const fields = validateUpdate(raw);
    refuseBadInvoiceRules(deps, fields);
    const row = await updateMerchant(deps.db, ctx.state.accountId!, ctx.params.merchantId ?? '', fields);
    if (!row) throw merchantNotFound(ctx.params.merchantId);
    await principalsChanged(deps.redis, ctx.state.log);
    ctx.body = merchantView(row);
  });

  for (const status of ['active', 'inactive'] as const) {
    routes.put(`/:merchantId/status/${status}`, async (ctx) => {
      const row = await updateMerchant(deps.db, ctx.state.accountId!, ctx.params.merchantId ?? '', { status: status === 'active' ? 'ACTIVE' : 'INACTIVE' });
      if (!row) throw merchantNotFound(ctx.params.merchantId);
      await principalsChanged(deps.redis, ctx.state.log);
      ctx.body = merchantView(row);
    });
  }

  const csdForm = multipartBody({ maxFileBytes: CSD_MAX_FILE_BYTES, maxFiles: 2 });
  // POST saves and PUT renews; both answer 201 when the merchant had no CSD and 200 when one was replaced.
  for (const method of ['post', 'put'] as const) {
    routes[method]('/:merchantId/invoice-mode', csdForm, async (ctx) => {
      const merchant = await accountMerchant(deps, ctx);
      const { replaced, view } = await saveInvoiceMode(deps, merchant, ctx.state.form!);
      await principalsChanged(deps.redis, ctx.state.log);
      ctx.status = replaced ? 200 : 201;
      ctx.body = view;
    });
  }
  routes.get('/:merchantId/invoice-mode', async (ctx) => {
    const merchant = await accountMerchant(deps, ctx);
    const csd = await findCsdSummary(deps.db, merchant.id);
    if (!csd) throw new AppError(404, 'invoice_mode_not_configured', 'This merchant has no CSD yet; upload it with POST invoice-mode.');
    ctx.body = invoiceModeView(csd);
  });

  routes.post('/:merchantId/logos', multipartBody({ maxFileBytes: LOGO_LIMITS.maxBytes, maxFiles: 2 }), async (ctx) => {
    const merchant = await accountMerchant(deps, ctx);
    ctx.body = merchantView(await uploadLogos(deps, merchant, ctx.state.form!));
  });

  routes.put('/:merchantId/api-key/regenerate', async (ctx) => {
    const row = await accountMerchant(deps, ctx);
    // Production keys come with the production invoice mode (issue #5); until then keys are development keys.
    const mode: KeyMode = 'development';
    const apiKey = await regenerateApiKey(deps.db, row.id, mode);
    // The old key stops in every API process from their next request: their cached principals die now.
    await principalsChanged(deps.redis, ctx.state.log);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { merchantId: row.id, apiKey, mode };
  });

  return router;
}
