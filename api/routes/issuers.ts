import type { Router } from '@koa/router';
import { AppError } from '../../shared/platform/errors.js';
import { checkIssuerTaxData } from '../../shared/issuers/check-issuer.js';
import { createIssuerSchema } from '../contract/issuers/issuer-schema.js';
import { issuerView } from '../contract/issuers/issuer-view.js';
import { pageOf, parsePageRequest, queryText } from '../../shared/platform/pagination.js';
import { satToday } from '../../shared/domain/time-zone.js';
import { accountIssuer, groupNotFound } from '../account-resources.js';
import { groupBelongsTo, insertIssuer, listIssuers } from '../../shared/repositories/issuers.js';
import { synchronizeIssuer } from '../issuers/synchronize-issuer.js';
import { updateIssuerFromForm } from '../issuers/update-issuer.js';
import { multipartBody } from '../middleware/multipart-body.js';
import { LOGO_LIMITS } from '../../shared/images/normalize-logo.js';
import { validator } from '../../shared/platform/validation/ajv.js';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { jsonBody } from '../middleware/json-body.js';
import { managementAccess } from '../access/management-access.js';
import { apiRouter, routesWith } from '../routing/api-router.js';

const validateCreate = validator(createIssuerSchema);

/** /v1/qrs/issuers: the taxpayers (RFC) an account invoices as, scoped to the bearer token's account. */
export function issuerRoutes(deps: ApiDeps): Router<AppState> {
  const router = apiRouter('/v1/qrs/issuers');
  const routes = routesWith(router, managementAccess(deps).bearer);

  routes.post('/', jsonBody(deps.config.jsonBodyLimit), async (ctx) => {
    const accountId = ctx.state.accountId!;
    const request = validateCreate(ctx.request.body);
    const checked = checkIssuerTaxData(request, deps.catalogs, satToday());
    if ('details' in checked) throw new AppError(400, 'validation_failed', 'The issuer has invalid fields.', { details: checked.details });
    if (!(await groupBelongsTo(deps.db, accountId, request.groupId))) throw groupNotFound(request.groupId);
    const row = await insertIssuer(deps.db, {
      account_id: accountId,
      group_id: request.groupId,
      alias: request.alias,
      rfc: checked.rfc,
      id_cif: request.idCif,
      business_name: request.businessName.trim(),
      email: request.email,
      zip: request.zip,
      tax_regime_code: request.taxRegimeCode,
    });
    if (!row) {
      throw new AppError(409, 'issuer_already_exists', `The group already has an issuer with RFC ${checked.rfc}.`, {
        details: [{ field: 'taxId', code: 'duplicate', message: 'One issuer per RFC in a group.' }],
      });
    }
    ctx.status = 201;
    ctx.body = issuerView(row, deps.catalogs);
  });

  routes.get('/', async (ctx) => {
    const accountId = ctx.state.accountId!;
    const page = parsePageRequest(ctx.query);
    const groupId = queryText(ctx.query, 'groupId');
    const filter = queryText(ctx.query, 'filter');
    if (groupId && !(await groupBelongsTo(deps.db, accountId, groupId))) throw groupNotFound(groupId);
    const { rows, total } = await listIssuers(deps.db, accountId, { groupId, filter }, page);
    ctx.body = pageOf(
      rows.map((r) => issuerView(r, deps.catalogs)),
      total,
      page,
    );
  });

  routes.get('/:issuerId', async (ctx) => {
    ctx.body = issuerView(await accountIssuer(deps, ctx), deps.catalogs);
  });

  routes.put('/:issuerId', multipartBody({ maxFileBytes: LOGO_LIMITS.maxBytes, maxFiles: 1 }), async (ctx) => {
    const row = await accountIssuer(deps, ctx);
    ctx.body = issuerView(await updateIssuerFromForm(deps, row, ctx.state.form!), deps.catalogs);
  });

  routes.post('/:issuerId/synchronize', async (ctx) => {
    const row = await accountIssuer(deps, ctx);
    ctx.status = 202;
    ctx.body = await synchronizeIssuer(deps, row.id);
  });

  return router;
}
