import type { ApiDeps } from '../deps.js';
import { ensureInvoiceable, saleFromLink } from './open-sale.js';
import { activeTicketMerchant, ensureTicketOpen, isOfflineTicketLink, scanOfflineTicket } from './offline-ticket-link.js';

/**
 * The link a tax-status certificate is uploaded under must still lead to an invoice: a sale's link (v=1) a sale
 * that can be invoiced; an offline ticket's (issue #39: its waiting page fills the buyer's data from the CSF too)
 * a ticket whose sale has arrived and can be invoiced, or one that is still open, of a store that can invoice.
 */
export async function ensureCsfLinkOpen(deps: ApiDeps, query: Record<string, unknown>): Promise<void> {
  if (!isOfflineTicketLink(query)) {
    await ensureInvoiceable(deps, await saleFromLink(deps, query));
    return;
  }
  const scanned = await scanOfflineTicket(deps, query);
  if (scanned.saleLink) {
    const link = new URL(scanned.saleLink).searchParams;
    await ensureInvoiceable(deps, await saleFromLink(deps, { v: link.get('v'), t: link.get('t'), m: link.get('m') }));
    return;
  }
  ensureTicketOpen(scanned, new Date());
  await activeTicketMerchant(deps, scanned);
}
