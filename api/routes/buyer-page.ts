import type { Context } from 'koa';
import { AppError } from '../../shared/platform/errors.js';
import { expeditionPlace, type Sale } from '../../shared/repositories/sales.js';
import { buyerAsset } from '../../web/buyer-assets.js';
import { localPath, renderCodePage, renderSalePage, renderStatePage, type StatePageKind, type Support } from '../../web/render-buyer-page.js';
import { renderOfflinePendingPage } from '../../web/render-offline-page.js';
import { formCatalogs } from '../buyer/form-catalogs.js';
import { ensureInvoiceable, saleToShow } from '../buyer/open-sale.js';
import { isOfflineTicketLink, offlineTicketTarget, type ClosedTicket, type PendingTicket } from '../buyer/offline-ticket-link.js';
import { reviewSale } from '../buyer/review-sale.js';
import { qrLinkForShortCode } from '../buyer/short-code-link.js';
import type { ApiDeps } from '../deps.js';
import { rateLimit, shortCodeRateLimit } from '../middleware/rate-limit.js';
import { publicRule } from '../access/access-rules.js';
import { errorResponse, qrLinkQuery, text } from '../routing/openapi-parts.js';
import { defineRoute } from '../routing/route.js';

// The page holds no secrets but its URL does (the QR token): never leak it to another origin, never cache it.
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};

// The API's refusals as the page's states (same codes as ensureInvoiceable and saleToShow).
const STATE_OF_ERROR: Record<string, StatePageKind> = {
  invalid_signature: 'bad_link',
  unsupported_version: 'bad_link',
  qr_not_found: 'not_found',
  qr_expired: 'expired',
  qr_globally_invoiced: 'globally_invoiced',
  qr_cancelled: 'cancelled',
  invoice_cancelled: 'invoice_cancelled',
  qr_already_invoiced: 'invoiced',
  store_inactive: 'store_inactive',
  invalid_short_code: 'code_not_found',
  short_code_not_found: 'code_not_found',
  offline_code_not_arrived: 'offline_code_not_arrived',
  rate_limited: 'rate_limited',
  offline_ticket_closed: 'offline_closed',
};

function supportOf(sale: Sale): Support {
  return { merchantName: sale.merchant.name, email: sale.merchant.contactEmail, phone: sale.merchant.contactPhone };
}

/** The waiting page of an offline ticket whose sale has not arrived: what the ticket says, and the form. */
function pendingPage(deps: ApiDeps, { ticket, params, merchant, closesAt, currency }: PendingTicket): string {
  return renderOfflinePendingPage(
    { storeName: merchant.name, saleId: ticket.saleId, amount: ticket.amount, currency, soldAt: ticket.soldAt, closesAt },
    {
      link: params,
      catalogs: formCatalogs(deps.catalogs, merchant.invoiceRules),
      storeZip: merchant.expeditionPlace,
      support: { merchantName: merchant.name, email: merchant.contactEmail, phone: merchant.contactPhone },
      allowGenericRfc: merchant.invoiceRules.allowGenericRfc,
    },
  );
}

/** An offline ticket that can no longer be invoiced here: why, what the ticket says, and whom to ask. */
function closedPage({ ticket, reason, merchant, closesAt, currency }: ClosedTicket): string {
  const support = merchant && { merchantName: merchant.name, email: merchant.contactEmail, phone: merchant.contactPhone };
  const summary = { storeName: merchant?.name ?? '', saleId: ticket.saleId, amount: ticket.amount, currency, soldAt: ticket.soldAt, closesAt };
  return renderStatePage(reason === 'key_revoked' ? 'offline_key_revoked' : 'offline_closed', { support, offlineTicket: summary });
}

function html(ctx: Context, status: number, body: string): void {
  ctx.set(PAGE_HEADERS);
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
}

/** What the per-QR limit counts: the token of a v=1 link, the MAC of an offline ticket's. */
function perLinkKey(query: Record<string, unknown>): string | undefined {
  const value = isOfflineTicketLink(query) ? query.m : query.t;
  return typeof value === 'string' ? value.slice(0, 64) : undefined;
}

/**
 * GET /q: the buyer's self-invoicing page (qr_content is a link to it). With v, t and m: the sale, or
 * the page of the state that stops the buyer. With `code`: the typed short code, redirected to its link.
 * Alone: where to type that code. Rate-limited like the buyer's API, inside the handler: which limit
 * applies depends on the query, and a refusal is a page too (its 429 is declared with the page's answers).
 */
export const buyerPageRoutes = [
  defineRoute({
    method: 'get',
    path: '/q',
    access: publicRule,
    operationId: 'getBuyerPage',
    summary:
      "The buyer's self-invoicing page (HTML, Spanish): qr_content links here. With `v`, `t`, `m`: the sale, the tax-data form and the invoice; with `code`: the ticket's short code, 303 to its link; alone: where to type the code. States that stop the buyer have their own page and status (400 bad link, 404 unknown, 409 invoiced, 410 expired or cancelled, 422 store inactive, 429)",
    parameters: [
      ...qrLinkQuery.map((p) => ({ ...p, required: false })),
      { name: 'code', in: 'query', required: false, schema: { type: 'string' }, description: 'Short code printed on the ticket' },
    ],
    responses: {
      200: { description: 'The page', content: text('text/html') },
      303: { description: 'To the sale of a short code' },
      400: { description: 'text/html: bad link' },
      404: { description: 'text/html: unknown QR or code' },
      409: { description: "text/html: already invoiced: its date and UUID, and a form for the buyer's RFC that gives the files" },
      410: { description: 'text/html: expired or cancelled' },
      422: { description: 'text/html: store inactive' },
      429: { description: 'text/html: too many attempts' },
    },
    handle: (deps) => {
      const limited = rateLimit(deps.redis, [
        { scope: 'ip', perMinute: deps.config.publicRatePerIp, key: (ctx) => ctx.ip },
        { scope: 'qr', perMinute: deps.config.publicRatePerToken, key: (ctx) => perLinkKey(ctx.query) },
      ]);
      const codeLimited = shortCodeRateLimit(deps);
      return async (ctx) => {
        let sale: Sale | undefined;
        try {
          if (ctx.query.code !== undefined) {
            await codeLimited(ctx, async () => undefined);
            const link = await qrLinkForShortCode(deps, ctx.query.code);
            ctx.set(PAGE_HEADERS);
            ctx.redirect(localPath(link));
            ctx.status = 303;
            return;
          }
          if (ctx.query.v === undefined && ctx.query.t === undefined && ctx.query.m === undefined) {
            html(ctx, 200, renderCodePage());
            return;
          }
          await limited(ctx, async () => undefined);
          if (isOfflineTicketLink(ctx.query)) {
            const target = await offlineTicketTarget(deps, ctx.query);
            if ('pending' in target) {
              // 404: not there yet (scanned again later, it may be).
              html(ctx, 404, pendingPage(deps, target.pending));
              return;
            }
            if ('closed' in target) {
              html(ctx, 410, closedPage(target.closed));
              return;
            }
            ctx.set(PAGE_HEADERS);
            ctx.redirect(localPath(target.saleLink));
            ctx.status = 303;
            return;
          }
          const shown = await saleToShow(deps, ctx.query);
          sale = shown.sale;
          await ensureInvoiceable(deps, sale, shown.db);
          const view = await reviewSale(deps, sale, shown.db);
          const link = { v: String(ctx.query.v), t: String(ctx.query.t), m: String(ctx.query.m) };
          html(
            ctx,
            200,
            renderSalePage(view, {
              link,
              catalogs: formCatalogs(deps.catalogs, sale.merchant.invoiceRules),
              storeZip: expeditionPlace(sale),
              support: supportOf(sale),
              allowGenericRfc: sale.merchant.invoiceRules.allowGenericRfc,
            }),
          );
        } catch (err) {
          const kind = err instanceof AppError ? STATE_OF_ERROR[err.code] : undefined;
          if (!kind || !(err instanceof AppError)) throw err;
          if (err.headers['Retry-After']) ctx.set('Retry-After', err.headers['Retry-After']);
          if (kind === 'invoice_cancelled') {
            const cancelled = err.extra.invoice as { uuid: string; issued_at: string; cancelled_at: string };
            html(ctx, err.status, renderStatePage(kind, { support: sale && supportOf(sale), cancelled }));
            return;
          }
          const invoice = (err.extra.invoice ?? null) as { uuid: string; issued_at: string } | null;
          const link = { v: String(ctx.query.v), t: String(ctx.query.t), m: String(ctx.query.m) };
          html(ctx, err.status, renderStatePage(kind, { support: sale && supportOf(sale), invoice, link }));
        }
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/q/assets/{name}',
    access: publicRule,
    operationId: 'getBuyerPageAsset',
    summary: "The page's stylesheet and script (immutable under their content hash `h`)",
    responses: { 200: { description: 'The stylesheet or the script', content: { ...text('text/css'), ...text('text/javascript') } }, 404: errorResponse('No such asset') },
    handle: () => (ctx) => {
      const asset = buyerAsset(ctx.params.name);
      if (!asset) throw new AppError(404, 'not_found', 'No such asset.');
      ctx.set('Cache-Control', ctx.query.h === asset.hash ? 'public, max-age=31536000, immutable' : 'no-cache');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.type = asset.type;
      ctx.body = asset.body;
    },
  }),
];
