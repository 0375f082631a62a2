import { AppError } from '../../shared/platform/errors.js';
import { globalInvoiceView } from '../contract/global-invoices/global-invoice-view.js';
import { globalPeriod, globalPeriodEndingAt } from '../../shared/global-invoice/global-period.js';
import { globalPeriodicityRequestSchema, reportGlobalRequestSchema } from '../contract/global-invoices/global-invoice-schema.js';
import { reportPeriods } from '../../shared/global-invoice/report-periods.js';
import { issuerView } from '../contract/issuers/issuer-view.js';
import { pageOf } from '../../shared/platform/pagination.js';
import { globalInvoicesByIds, listGlobalInvoices, unreportedPeriods } from '../../shared/repositories/global-invoices.js';
import { principalsChanged } from '../../shared/platform/principal-generation.js';
import { setGlobalPeriodicity } from '../../shared/repositories/issuers.js';
import { accountIssuer } from '../account-resources.js';
import type { ApiDeps } from '../deps.js';
import { bearerRule } from '../access/access-rules.js';
import { errorResponse, json, ref } from '../routing/openapi-parts.js';
import { pagedQuery } from '../routing/request-query.js';
import { jsonRequest } from '../routing/request-body.js';
import { defineRoute } from '../routing/route.js';

/** An issuer's global invoices for unclaimed sales: their periodicity, the manual trigger, the list (bearer token). */
const PATH = '/v1/qrs/issuers/{issuerId}';
const linksOf = (deps: ApiDeps) => ({ publicBaseUrl: deps.config.publicBaseUrl, urlSigningKey: deps.config.urlSigningKey });

export const globalInvoiceRoutes = [
  defineRoute({
    method: 'put',
    path: `${PATH}/global-periodicity`,
    access: bearerRule,
    body: jsonRequest(globalPeriodicityRequestSchema),
    operationId: 'setGlobalPeriodicity',
    summary: "The c_Periodicidad of the issuer's global invoice for unclaimed sales (QRs created from now on)",
    requestBody: { required: true, content: json('GlobalPeriodicityRequest') },
    responses: {
      200: { description: 'The issuer', content: json('Issuer') },
      400: errorResponse('Not 01–04'),
      404: errorResponse('Issuer not found in the account'),
    },
    handle: (deps) => async (ctx) => {
      const issuer = await accountIssuer(deps, ctx);
      const { periodicity } = ctx.state.body;
      const row = await setGlobalPeriodicity(deps.db, issuer.id, periodicity);
      // Its merchants' API key principals carry the periodicity (each QR's expiry cap).
      await principalsChanged(deps.redis, ctx.state.log);
      ctx.body = issuerView(row, deps.catalogs);
    },
  }),
  // Reports now what the scheduled job would after the grace: closed periods only.
  defineRoute({
    method: 'post',
    path: `${PATH}/global-invoices`,
    access: bearerRule,
    body: jsonRequest(reportGlobalRequestSchema),
    operationId: 'reportGlobalInvoices',
    summary: 'Report now the unclaimed sales of closed periods (all, or the period of `date`) in global invoices',
    requestBody: { required: false, content: json('GlobalInvoiceRequest') },
    responses: {
      200: { description: 'Nothing left to report: `{ items: [] }`', content: { 'application/json': { schema: ref('GlobalInvoiceList'), example: { items: [] } } } },
      201: { description: '`{ items }`: the global invoices recorded (STAMPING)', content: json('GlobalInvoiceList') },
      400: errorResponse('Bad date'),
      404: errorResponse('Issuer not found in the account'),
      409: errorResponse('period_not_closed'),
    },
    handle: (deps) => async (ctx) => {
      const issuer = await accountIssuer(deps, ctx);
      const request = ctx.state.body;
      const now = new Date();
      let periods = await unreportedPeriods(deps.db, now, issuer.id);
      if (request.date) {
        // Noon in central Mexico stands for the day.
        const day = new Date(`${request.date}T12:00:00-06:00`);
        if (globalPeriod(day, issuer.global_periodicity).end.getTime() > now.getTime()) {
          throw new AppError(409, 'period_not_closed', `The period of ${request.date} has not closed yet; its unclaimed sales are reported after the close.`);
        }
        periods = periods.filter((p) => {
          const period = globalPeriodEndingAt(p.global_period_end, p.global_periodicity);
          return period.start <= day && day < period.end;
        });
      }
      const invoices = await reportPeriods(deps.db, deps.producers, periods);
      const rows =
        invoices.length > 0
          ? await globalInvoicesByIds(
              deps.db,
              invoices.map((i) => i.id),
            )
          : [];
      ctx.status = rows.length > 0 ? 201 : 200;
      ctx.body = { items: rows.map((row) => globalInvoiceView(row, linksOf(deps))) };
    },
  }),
  defineRoute({
    method: 'get',
    path: `${PATH}/global-invoices`,
    access: bearerRule,
    operationId: 'listGlobalInvoices',
    summary: "The issuer's global invoices, newest period first (page envelope)",
    query: pagedQuery,
    responses: {
      200: { description: 'Page of global invoices', content: json('GlobalInvoicePage') },
      400: errorResponse('Bad paging'),
      404: errorResponse('Issuer not found in the account'),
    },
    handle: (deps) => async (ctx) => {
      const issuer = await accountIssuer(deps, ctx);
      const page = ctx.state.query;
      const { rows, total } = await listGlobalInvoices(deps.db, issuer.id, page);
      ctx.body = pageOf(
        rows.map((row) => globalInvoiceView(row, linksOf(deps))),
        total,
        page,
      );
    },
  }),
];
