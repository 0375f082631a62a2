import type { Router } from '@koa/router';
import { AppError } from '../../shared/platform/errors.js';
import { validator } from '../../shared/platform/validation/ajv.js';
import { toFixed6 } from '../../shared/domain/money.js';
import { satToday } from '../../shared/domain/time-zone.js';
import { checkCustomer } from '../../shared/invoices/check-customer.js';
import { maskedAddress } from '../../shared/invoices/email-recipient.js';
import { offlineTicketClosesAt } from '../../shared/offline/offline-ticket-check.js';
import { activeTicketMerchant, ensureTicketOpen, scanOfflineTicket } from '../buyer/offline-ticket-link.js';
import { saveClaim, type OfflineClaimRow } from '../../shared/repositories/offline-claims.js';
import { hashSecret, issueSecret } from '../../shared/platform/crypto/secret-token.js';
import { offlineClaimRequestSchema, type OfflineClaimView } from '../contract/buyer/offline-claim-schema.js';
import { PUBLIC_ACCESS } from '../access/public-access.js';
import { jsonBody } from '../middleware/json-body.js';
import { rateLimit } from '../middleware/rate-limit.js';
import { apiRouter, routesWith } from '../routing/api-router.js';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';

const validateClaim = validator(offlineClaimRequestSchema);

/** The per-link counter of an offline ticket is its signature (`m`), as on its page. */
function linkMac(body: unknown): string | undefined {
  const m = (body as { m?: unknown } | undefined)?.m;
  return typeof m === 'string' ? m.slice(0, 64) : undefined;
}

function claimView(claim: OfflineClaimRow, storeName: string, claimToken: string): OfflineClaimView {
  return {
    claim_token: claimToken,
    status: claim.status,
    store_name: storeName,
    sale_id: claim.sale_id,
    amount: claim.amount,
    sold_at: claim.sold_at.toISOString(),
    email: maskedAddress(claim.customer.email),
    refusal: claim.refusal,
  };
}

/**
 * POST /v1/public/qrs/offline-claim (issue #33): a buyer whose offline ticket's sale has not arrived leaves
 * their tax data; the invoice is stamped when the POS posts the sale (workers/settle-offline-claims.ts).
 * The signed link is the capability, as for the other buyer routes. 202 WAITING with a `claim_token`: the
 * first buyer holds the claim and corrects it with that token while it waits (issue #39: a second buyer no
 * longer replaces the first in silence, 409 `offline_claim_taken`); 409 `offline_sale_arrived` with the sale's link once it has (the usual page takes over);
 * 410 when the ticket can no longer be invoiced.
 */
export function publicOfflineClaimRoutes(deps: ApiDeps): Router<AppState> {
  const router = apiRouter('/v1/public/qrs');
  const routes = routesWith(router, PUBLIC_ACCESS);
  const perIp = rateLimit(deps.redis, [{ scope: 'ip', perMinute: deps.config.publicRatePerIp, key: (ctx) => ctx.ip }]);
  const perLink = rateLimit(deps.redis, [{ scope: 'qr', perMinute: deps.config.publicRatePerToken, key: (ctx) => linkMac(ctx.request.body) }]);
  const parse = jsonBody(deps.config.jsonBodyLimit);

  routes.post('/offline-claim', perIp, parse, perLink, async (ctx) => {
    const request = validateClaim(ctx.request.body);
    const scanned = await scanOfflineTicket(deps, request);
    if (scanned.saleLink) {
      throw new AppError(409, 'offline_sale_arrived', 'The store has sent this sale: invoice it from its page.', { extra: { qr_content: scanned.saleLink } });
    }
    const now = new Date();
    ensureTicketOpen(scanned, now);
    const { ticket, key } = scanned;
    const merchant = await activeTicketMerchant(deps, scanned);
    const checked = checkCustomer(request.customer, { catalogs: deps.catalogs, expeditionPlace: merchant.expeditionPlace, onDate: satToday(now), rules: merchant.invoiceRules });
    if (checked.findings.length > 0) throw new AppError(422, 'customer_invalid', 'Some tax data needs correcting.', { details: checked.findings });
    // The first claimant holds the ticket: a correction carries their token; anyone else gets a new one, which
    // holds only a ticket nobody claimed yet.
    const claimToken = request.claim_token ?? issueSecret('oct').secret;
    const saved = await saveClaim(
      deps.db,
      {
        key_id: key.id,
        sale_id: ticket.saleId,
        merchant_id: key.merchantId,
        amount: toFixed6(ticket.amount),
        sold_at: ticket.soldAt,
        closes_at: offlineTicketClosesAt(ticket, key),
        customer: checked.customer,
      },
      hashSecret(claimToken),
    );
    if (saved.outcome === 'settled') throw new AppError(409, 'offline_claim_settled', 'Your data for this ticket was already used; scan the QR again to see its invoice.');
    if (saved.outcome === 'held-by-another') {
      throw new AppError(409, 'offline_claim_taken', 'Another buyer already left their tax data for this ticket; only they can change it. Ask the store for help.');
    }
    ctx.status = 202;
    ctx.body = claimView(saved.claim, merchant.name, claimToken);
  });

  return router;
}
