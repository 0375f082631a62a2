import { AppError } from '../../shared/platform/errors.js';
import { toFixed6 } from '../../shared/domain/money.js';
import { satToday } from '../../shared/domain/time-zone.js';
import { checkCustomer } from '../../shared/invoices/check-customer.js';
import { maskedAddress } from '../../shared/invoices/email-recipient.js';
import { offlineTicketClosesAt } from '../../shared/offline/offline-ticket-check.js';
import { activeTicketMerchant, ensureTicketOpen, scanOfflineTicket } from '../buyer/offline-ticket-link.js';
import { saveClaim, type OfflineClaimRow } from '../../shared/repositories/offline-claims.js';
import { hashSecret, issueSecret } from '../../shared/platform/crypto/secret-token.js';
import { offlineClaimRequestSchema, type OfflineClaimView } from '../contract/buyer/offline-claim-schema.js';
import { publicRule } from '../access/access-rules.js';
import { offlineLinkRate, publicIpRate } from '../access/rate-rules.js';
import { errorResponse, json } from '../routing/openapi-parts.js';
import { jsonRequest } from '../routing/request-body.js';
import { defineRoute } from '../routing/route.js';

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
export const publicOfflineClaimRoutes = [
  defineRoute({
    method: 'post',
    path: '/v1/public/qrs/offline-claim',
    access: publicRule,
    rate: [publicIpRate, offlineLinkRate],
    body: jsonRequest(offlineClaimRequestSchema),
    operationId: 'leaveOfflineClaim',
    summary:
      "Buyer: leave tax data and e-mail on an offline ticket whose sale the store has not sent yet (its link's v=2 parameters); the invoice is stamped and e-mailed when the sale arrives, or the buyer is told why not",
    requestBody: { required: true, content: json('OfflineClaimRequest') },
    responses: {
      202: { description: 'WAITING: kept until the sale arrives (send again to correct the data while it waits)', content: json('OfflineClaim') },
      400: errorResponse('Invalid body, or a link not signed by a known offline key (`invalid_signature`)'),
      409: errorResponse(
        '`offline_sale_arrived` (invoice it from its page: `qr_content`), `offline_claim_taken` (another buyer holds this ticket: only their `claim_token` corrects it), or `offline_claim_settled`',
      ),
      410: errorResponse('`offline_ticket_closed`: the window passed or the key was revoked'),
      422: errorResponse('`customer_invalid` with details, or `store_inactive`'),
    },
    handle: (deps) => async (ctx) => {
      const request = ctx.state.body;
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
    },
  }),
];
