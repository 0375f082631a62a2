import { AppError } from '../../shared/platform/errors.js';
import { createMerchantSchema, updateMerchantSchema, type UpdateMerchantRequest } from '../contract/merchants/merchant-schema.js';
import { merchantSummaryView, merchantView } from '../contract/merchants/merchant-view.js';
import { pageOf, queryText } from '../../shared/platform/pagination.js';
import { accountMerchant, issuerNotFound, MERCHANT_REFUSALS, merchantNotFound } from '../account-resources.js';
import { createApiKey, regenerateApiKey, type KeyMode } from '../../shared/repositories/api-keys.js';
import { findIssuer } from '../../shared/repositories/issuers.js';
import { principalsChanged } from '../../shared/platform/principal-generation.js';
import { insertMerchant, listMerchants, updateMerchant } from '../../shared/repositories/merchants.js';
import type { ApiDeps } from '../deps.js';
import { invoiceModeView, saveInvoiceMode } from '../merchants/invoice-mode.js';
import { uploadLogos } from '../merchants/upload-logos.js';
import { checkInvoiceRules } from '../../shared/merchants/check-invoice-rules.js';
import { LOGO_LIMITS } from '../../shared/images/normalize-logo.js';
import { CSD_MAX_FILE_BYTES } from '../../shared/csd/check-csd.js';
import { findCsdSummary } from '../../shared/repositories/merchant-csds.js';
import { bearerRule } from '../access/access-rules.js';
import { formBody } from '../openapi-forms.js';
import { errorResponse, json } from '../routing/openapi-parts.js';
import { pagedQuery } from '../routing/request-query.js';
import { jsonRequest } from '../routing/request-body.js';
import { defineRoute } from '../routing/route.js';

function refuseBadInvoiceRules(deps: ApiDeps, fields: UpdateMerchantRequest): void {
  const details = checkInvoiceRules(fields.invoiceRules, deps.catalogs);
  if (details.length > 0) throw new AppError(400, 'validation_failed', 'The invoicing rules name CFDI uses a sale cannot have.', { details });
}

/** issuerId is set at creation: said so, rather than the schema's `unknown_field`. */
function refuseIssuerId(raw: unknown): void {
  if (raw && typeof raw === 'object' && 'issuerId' in raw) {
    throw new AppError(400, 'validation_failed', 'A merchant cannot move to another issuer.', {
      details: [{ field: 'issuerId', code: 'not_updatable', message: 'issuerId is set at creation; create a new merchant under the other issuer.' }],
    });
  }
}

const PATH = '/v1/qrs/merchants';
const ONE = `${PATH}/{merchantId}` as const;
const merchantAnswer = { description: 'The Merchant', content: json('Merchant') };

/** POST saves and PUT renews a CSD; both answer 201 when the merchant had no CSD and 200 when one was replaced. */
const csdUpload = (method: 'post' | 'put', operationId: string, summary: string) =>
  defineRoute({
    method,
    path: `${ONE}/invoice-mode`,
    access: bearerRule,
    form: { maxFileBytes: CSD_MAX_FILE_BYTES, maxFiles: 2 },
    operationId,
    summary,
    requestBody: formBody('CsdUploadForm'),
    responses: {
      200: { description: 'The CSD replaced one', content: json('InvoiceModeResponse') },
      201: { description: 'The first CSD of the merchant', content: json('InvoiceModeResponse') },
      400: errorResponse('invalid_csd with details: wrong password, key mismatch, expired or not yet valid, FIEL, RFC of another taxpayer'),
      413: errorResponse('A file over 64 KB'),
      415: errorResponse('Not multipart/form-data'),
      ...MERCHANT_REFUSALS,
    },
    handle: (deps) => async (ctx) => {
      const merchant = await accountMerchant(deps, ctx);
      const { replaced, view } = await saveInvoiceMode(deps, merchant, ctx.state.form);
      await principalsChanged(deps.redis, ctx.state.log);
      ctx.status = replaced ? 200 : 201;
      ctx.body = view;
    },
  });

/** Activate or deactivate. */
const statusChange = (status: 'active' | 'inactive', operationId: string, summary: string) =>
  defineRoute({
    method: 'put',
    path: `${ONE}/status/${status}`,
    access: bearerRule,
    operationId,
    summary,
    responses: { 200: merchantAnswer, ...MERCHANT_REFUSALS },
    handle: (deps) => async (ctx) => {
      const row = await updateMerchant(deps.db, ctx.state.accountId, ctx.params.merchantId, { status: status === 'active' ? 'ACTIVE' : 'INACTIVE' });
      if (!row) throw merchantNotFound(ctx.params.merchantId);
      await principalsChanged(deps.redis, ctx.state.log);
      ctx.body = merchantView(row);
    },
  });

/** /v1/qrs/merchants: points of sale, scoped to the bearer token's account. */
export const merchantRoutes = [
  defineRoute({
    method: 'post',
    path: PATH,
    access: bearerRule,
    body: jsonRequest(createMerchantSchema),
    operationId: 'createMerchant',
    summary: 'Create a merchant (point of sale); the answer also carries its first development API key (`apiKey`), shown only here',
    requestBody: { required: true, content: json('CreateMerchantRequest') },
    responses: {
      201: { description: 'The Merchant, plus `apiKey`: its first development API key (shown once; `PUT …/api-key/regenerate` replaces it)', content: json('MerchantCreated') },
      400: errorResponse('Invalid fields'),
      ...MERCHANT_REFUSALS,
    },
    handle: (deps) => async (ctx) => {
      const accountId = ctx.state.accountId;
      const { issuerId, ...fields } = ctx.state.body;
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
    },
  }),
  defineRoute({
    method: 'get',
    path: PATH,
    access: bearerRule,
    query: pagedQuery,
    operationId: 'listMerchants',
    summary: 'List merchants of an issuer (page of MerchantSummary)',
    parameters: [
      { name: 'issuerId', in: 'query', required: true, schema: { type: 'string' } },
      { name: 'filter', in: 'query', schema: { type: 'string' } },
    ],
    responses: {
      200: { description: 'Page envelope of MerchantSummary', content: json('MerchantSummaryPage') },
      400: errorResponse('issuerId missing or bad paging'),
      ...MERCHANT_REFUSALS,
    },
    handle: (deps) => async (ctx) => {
      const accountId = ctx.state.accountId;
      const page = ctx.state.query;
      const issuerId = queryText(ctx.query, 'issuerId');
      if (!issuerId) {
        throw new AppError(400, 'validation_failed', 'issuerId is required.', { details: [{ field: 'issuerId', code: 'required', message: 'issuerId is required.' }] });
      }
      if (!(await findIssuer(deps.db, accountId, issuerId))) throw issuerNotFound(issuerId, 'issuerId');
      const filter = queryText(ctx.query, 'filter');
      const { rows, total } = await listMerchants(deps.db, accountId, issuerId, filter, page);
      ctx.body = pageOf(rows.map(merchantSummaryView), total, page);
    },
  }),
  defineRoute({
    method: 'get',
    path: ONE,
    access: bearerRule,
    operationId: 'getMerchant',
    summary: 'Read a merchant',
    responses: { 200: merchantAnswer, ...MERCHANT_REFUSALS },
    handle: (deps) => async (ctx) => {
      ctx.body = merchantView(await accountMerchant(deps, ctx));
    },
  }),
  defineRoute({
    method: 'put',
    path: ONE,
    access: bearerRule,
    body: jsonRequest(updateMerchantSchema, { first: refuseIssuerId }),
    operationId: 'updateMerchant',
    summary: 'Update a merchant (partial; issuerId cannot change)',
    requestBody: { required: true, content: json('UpdateMerchantRequest') },
    responses: { 200: merchantAnswer, 400: errorResponse('Invalid fields, or issuerId'), ...MERCHANT_REFUSALS },
    handle: (deps) => async (ctx) => {
      const fields = ctx.state.body;
      refuseBadInvoiceRules(deps, fields);
      const row = await updateMerchant(deps.db, ctx.state.accountId, ctx.params.merchantId, fields);
      if (!row) throw merchantNotFound(ctx.params.merchantId);
      await principalsChanged(deps.redis, ctx.state.log);
      ctx.body = merchantView(row);
    },
  }),
  statusChange('active', 'activateMerchant', 'Activate'),
  statusChange('inactive', 'deactivateMerchant', 'Deactivate: no new QRs, no invoicing; transactions stay readable'),
  csdUpload('post', 'saveMerchantCsd', 'Save the CSD (.cer, .key, password); 201 when new, 200 when it replaced one'),
  csdUpload('put', 'renewMerchantCsd', 'Renew the CSD; 201 when there was none, 200 when it replaced one'),
  defineRoute({
    method: 'get',
    path: `${ONE}/invoice-mode`,
    access: bearerRule,
    operationId: 'getMerchantInvoiceMode',
    summary: 'The configured invoice mode (InvoiceModeResponse, no secrets)',
    responses: { 200: { description: 'The invoice mode', content: json('InvoiceModeResponse') }, ...MERCHANT_REFUSALS },
    handle: (deps) => async (ctx) => {
      const merchant = await accountMerchant(deps, ctx);
      const csd = await findCsdSummary(deps.db, merchant.id);
      if (!csd) throw new AppError(404, 'invoice_mode_not_configured', 'This merchant has no CSD yet; upload it with POST invoice-mode.');
      ctx.body = invoiceModeView(csd);
    },
  }),
  defineRoute({
    method: 'post',
    path: `${ONE}/logos`,
    access: bearerRule,
    form: { maxFileBytes: LOGO_LIMITS.maxBytes, maxFiles: 2 },
    operationId: 'uploadMerchantLogos',
    summary: 'Upload logos (decoded and re-encoded: invoice logo PNG ≤ 600×300, app logo WebP ≤ 512×512)',
    requestBody: formBody('MerchantLogosForm'),
    responses: {
      200: merchantAnswer,
      400: errorResponse('Not an image, too many pixels, bad logoAnimation'),
      413: errorResponse('A file over 2 MB'),
      415: errorResponse('Not multipart/form-data'),
      ...MERCHANT_REFUSALS,
    },
    handle: (deps) => async (ctx) => {
      const merchant = await accountMerchant(deps, ctx);
      ctx.body = merchantView(await uploadLogos(deps, merchant, ctx.state.form));
    },
  }),
  defineRoute({
    method: 'put',
    path: `${ONE}/api-key/regenerate`,
    access: bearerRule,
    operationId: 'regenerateMerchantApiKey',
    summary: 'Replace the API key; the old one fails from the next request',
    responses: { 200: { description: 'The new key, shown once (Cache-Control: no-store)', content: json('RegeneratedApiKey') }, ...MERCHANT_REFUSALS },
    handle: (deps) => async (ctx) => {
      const row = await accountMerchant(deps, ctx);
      // Production keys come with the production invoice mode (issue #5); until then keys are development keys.
      const mode: KeyMode = 'development';
      const apiKey = await regenerateApiKey(deps.db, row.id, mode);
      // The old key stops in every API process from their next request: their cached principals die now.
      await principalsChanged(deps.redis, ctx.state.log);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { merchantId: row.id, apiKey, mode };
    },
  }),
];
