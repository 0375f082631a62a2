import { AppError } from '../../shared/platform/errors.js';
import { checkIssuerTaxData } from '../../shared/issuers/check-issuer.js';
import { createIssuerSchema } from '../contract/issuers/issuer-schema.js';
import { issuerView } from '../contract/issuers/issuer-view.js';
import { pageOf, queryText } from '../../shared/platform/pagination.js';
import { satToday } from '../../shared/domain/time-zone.js';
import { accountIssuer, groupNotFound } from '../account-resources.js';
import { groupBelongsTo, insertIssuer, listIssuers } from '../../shared/repositories/issuers.js';
import { synchronizeIssuer } from '../issuers/synchronize-issuer.js';
import { updateIssuerFromForm } from '../issuers/update-issuer.js';
import { LOGO_LIMITS } from '../../shared/images/normalize-logo.js';
import { bearerRule } from '../access/access-rules.js';
import { formBody } from '../openapi-forms.js';
import { errorResponse, json } from '../routing/openapi-parts.js';
import { pagedQuery } from '../routing/request-query.js';
import { jsonRequest } from '../routing/request-body.js';
import { defineRoute } from '../routing/route.js';

/** /v1/qrs/issuers: the taxpayers (RFC) an account invoices as, scoped to the bearer token's account. */
export const issuerRoutes = [
  defineRoute({
    method: 'post',
    path: '/v1/qrs/issuers',
    access: bearerRule,
    body: jsonRequest(createIssuerSchema),
    operationId: 'createIssuer',
    summary: 'Create an issuer',
    requestBody: { required: true, content: json('CreateIssuerRequest') },
    responses: {
      201: { description: 'The issuer', content: json('Issuer') },
      400: errorResponse('Invalid fields: RFC, regime for the person type, zip, e-mail, idCif'),
      401: errorResponse('Token invalid, expired or revoked'),
      404: errorResponse('Group not found in the account'),
      409: errorResponse('`issuer_already_exists`: the group already has an issuer with this RFC'),
    },
    handle: (deps) => async (ctx) => {
      const accountId = ctx.state.accountId;
      const request = ctx.state.body;
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
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/qrs/issuers',
    access: bearerRule,
    query: pagedQuery,
    operationId: 'listIssuers',
    summary: 'List issuers (page envelope)',
    parameters: [
      { name: 'groupId', in: 'query', schema: { type: 'string' } },
      { name: 'filter', in: 'query', schema: { type: 'string' }, description: 'part of the name, alias or RFC' },
    ],
    responses: {
      200: { description: 'Page of Issuer', content: json('IssuerPage') },
      400: errorResponse('Bad paging'),
      404: errorResponse('Group not found'),
    },
    handle: (deps) => async (ctx) => {
      const accountId = ctx.state.accountId;
      const page = ctx.state.query;
      const groupId = queryText(ctx.query, 'groupId');
      const filter = queryText(ctx.query, 'filter');
      if (groupId && !(await groupBelongsTo(deps.db, accountId, groupId))) throw groupNotFound(groupId);
      const { rows, total } = await listIssuers(deps.db, accountId, { groupId, filter }, page);
      ctx.body = pageOf(
        rows.map((r) => issuerView(r, deps.catalogs)),
        total,
        page,
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/qrs/issuers/{issuerId}',
    access: bearerRule,
    operationId: 'getIssuer',
    summary: 'Read an issuer',
    responses: { 200: { description: 'The issuer', content: json('Issuer') }, 404: errorResponse('Issuer not found') },
    handle: (deps) => async (ctx) => {
      ctx.body = issuerView(await accountIssuer(deps, ctx), deps.catalogs);
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/qrs/issuers/{issuerId}',
    access: bearerRule,
    form: { maxFileBytes: LOGO_LIMITS.maxBytes, maxFiles: 1 },
    operationId: 'updateIssuer',
    summary: 'Update an issuer (a form: its editable fields and an optional logo)',
    requestBody: formBody('IssuerUpdateForm'),
    responses: {
      200: { description: 'The issuer', content: json('Issuer') },
      400: errorResponse('Invalid fields or logo'),
      404: errorResponse('Issuer or group not found'),
      409: errorResponse('`issuer_already_exists`: the target group already has an issuer with this RFC'),
      413: errorResponse('A logo over 2 MB'),
      415: errorResponse('Not multipart/form-data'),
    },
    handle: (deps) => async (ctx) => {
      const row = await accountIssuer(deps, ctx);
      ctx.body = issuerView(await updateIssuerFromForm(deps, row, ctx.state.form), deps.catalogs);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/qrs/issuers/{issuerId}/synchronize',
    access: bearerRule,
    operationId: 'synchronizeIssuer',
    summary: 'Synchronize the issuer with its CSF at SAT (background job with retries)',
    responses: {
      202: { description: 'The new synchronization, or the one already waiting or running (GET the issuer to follow it)', content: json('IssuerSyncAccepted') },
      404: errorResponse('Issuer not found'),
      503: errorResponse('Job queue unavailable'),
    },
    handle: (deps) => async (ctx) => {
      const row = await accountIssuer(deps, ctx);
      ctx.status = 202;
      ctx.body = await synchronizeIssuer(deps, row.id);
    },
  }),
];
