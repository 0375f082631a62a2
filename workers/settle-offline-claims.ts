/**
 * settle-offline-claims: turns the tax data a buyer left on an offline ticket into an invoice once the POS
 * has posted the sale (queued by the catch-up for its sale, and every STAMP_SWEEP_MS for any claim whose
 * job was lost), or refuses it once the ticket's window has passed with no sale. The buyer confirmed the
 * signed total; the catch-up only binds a sale with that very total, so what is stamped is what they saw.
 * A refusal is e-mailed to the buyer with its reason.
 */
import { newId } from '../shared/platform/ids.js';
import type { Db } from '../shared/platform/db.js';
import type { Producers } from '../shared/platform/queues.js';
import type { SatCatalogs } from '../shared/sat/catalogs.js';
import { checkCustomer, sameCustomer } from '../shared/invoices/check-customer.js';
import { enqueueStamp } from '../shared/invoices/enqueue-stamp.js';
import { satToday } from '../shared/domain/time-zone.js';
import { recordConfirmation } from '../shared/repositories/invoices.js';
import { arrivedClaims, closedClaims, settleClaim, type ArrivedClaim, type ClaimRefusal, type OfflineClaimRow } from '../shared/repositories/offline-claims.js';
import { expeditionPlace, findSale } from '../shared/repositories/sales.js';

export interface SettleClaimsDeps {
  db: Db;
  producers: Producers;
  catalogs: SatCatalogs;
}

const BATCH = 100;

export async function settleOfflineClaimsJob(deps: SettleClaimsDeps, data: { transactionId?: string }, now: Date = new Date()): Promise<{ confirmed: number; refused: number }> {
  let confirmed = 0;
  let refused = 0;
  const refuse = async (claim: OfflineClaimRow, refusal: ClaimRefusal) => {
    if (!(await settleClaim(deps.db, claim, { status: 'REFUSED', refusal }))) return;
    refused++;
    await deps.producers.add('email-offline-claim', { keyId: claim.key_id, saleId: claim.sale_id });
  };
  for (const arrived of await arrivedClaims(deps.db, BATCH, data.transactionId)) {
    const outcome = await settleArrived(deps, arrived, now);
    if ('refusal' in outcome) await refuse(arrived.claim, outcome.refusal);
    else if (await settleClaim(deps.db, arrived.claim, { status: 'CONFIRMED', invoiceId: outcome.invoiceId })) {
      confirmed++;
      await enqueueStamp(deps.producers, outcome.invoiceId);
    }
  }
  if (data.transactionId === undefined) for (const claim of await closedClaims(deps.db, now, BATCH)) await refuse(claim, 'window_passed');
  return { confirmed, refused };
}

async function settleArrived(deps: SettleClaimsDeps, { claim, transactionId }: ArrivedClaim, now: Date): Promise<{ invoiceId: string } | { refusal: ClaimRefusal }> {
  const sale = await findSale(deps.db, { id: transactionId });
  if (!sale) return { refusal: 'sale_closed' };
  // The store's rules as they are now: the buyer's data was checked when left, and is checked again.
  const checked = checkCustomer(claim.customer, { catalogs: deps.catalogs, expeditionPlace: expeditionPlace(sale), onDate: satToday(now), rules: sale.merchant.invoiceRules });
  if (checked.findings.length > 0) return { refusal: 'customer_invalid' };
  const outcome = await recordConfirmation(deps.db, { invoiceId: newId('invoice'), transactionIds: [transactionId], merchantId: sale.merchant.id, customer: checked.customer });
  if (outcome.ok) return { invoiceId: outcome.invoice.id };
  // A settlement that confirmed and then died before marking the claim finds its own confirmation.
  if ((outcome.reason === 'already_confirmed' || outcome.reason === 'invoiced') && outcome.invoice && sameCustomer(outcome.invoice.customer, checked.customer)) {
    return { invoiceId: outcome.invoice.id };
  }
  return { refusal: outcome.reason === 'already_confirmed' || outcome.reason === 'invoiced' ? 'sale_already_confirmed' : 'sale_closed' };
}
