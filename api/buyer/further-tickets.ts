/**
 * The further tickets a buyer adds to one invoice ("Agregar otro ticket"): each named by its printed short
 * code or by its scanned link (qr_content). Holding a ticket is the capability, as for the first one.
 */
import { verifyQrLink } from '../../shared/qr/qr-link.js';
import { parseShortCode } from '../../shared/domain/qr-code/short-code.js';
import { tokenForShortCode } from '../../shared/repositories/qr-transactions.js';
import { findSale, type Sale } from '../../shared/repositories/sales.js';
import { onReplicaOrPrimary, type Db, type DbHandles } from '../../shared/platform/db.js';
import type { ApiDeps } from '../deps.js';
import { combinedSale, type FurtherTicket, type TicketField } from '../invoices/ticket-set.js';
import type { QrTransactionRecord } from '../../shared/repositories/qr-transactions.js';

/** Where a buyer's ticket was named: the first one by the link's token, the others in `additional_tickets`. */
export const buyerTicketField: TicketField = (index) => (index === 0 ? 't' : `additional_tickets[${index - 1}]`);

/** How many of the references are short codes: each counts against the per-IP code lookup limit. */
export function shortCodeLookups(references: readonly unknown[] | undefined): number {
  return (references ?? []).filter((r) => typeof r === 'string' && parseShortCode(r) !== undefined).length;
}

/** `reads`: where the first ticket was read (saleToShow's replica, with the primary behind it), or the primary alone. */
async function furtherTicket(deps: ApiDeps, reference: string, reads: DbHandles): Promise<FurtherTicket> {
  const code = parseShortCode(reference);
  let token: string | undefined;
  if (code) {
    token = (await onReplicaOrPrimary(reads, (db) => tokenForShortCode(db, code)))?.found;
  } else {
    let params: URLSearchParams | undefined;
    try {
      params = new URL(reference).searchParams;
    } catch {
      params = undefined;
    }
    if (!params) return { missing: { code: 'invalid_ticket', message: 'Type the 10 characters printed under the QR, like 7KQ4M-XR2PA, or paste the link of its QR.' } };
    const check = verifyQrLink(Object.fromEntries(params), [deps.config.qrHmacKey, ...deps.config.qrHmacPreviousKeys]);
    if (!check.ok) return { missing: { code: 'invalid_signature', message: 'This QR link is not valid; scan the QR again.' } };
    token = check.token;
  }
  const known = token;
  const sale = known ? (await onReplicaOrPrimary(reads, (db) => findSale(db, { token: known })))?.found : undefined;
  return sale ? { sale } : { missing: { code: 'qr_not_found', message: 'No sale has this ticket; check it against the ticket.' } };
}

/**
 * The first sale with the buyer's further tickets, as one sale to invoice (422 per ticket that cannot join).
 * `db`: where the first was read; the further ones are read there too, and on the primary when not found there.
 */
export async function buyerTickets(
  deps: ApiDeps,
  first: Sale,
  references: readonly string[] | undefined,
  db: Db = deps.db,
): Promise<{ record: QrTransactionRecord; sales: Sale[] }> {
  if (!references || references.length === 0) return { record: first.record, sales: [] };
  const reads: DbHandles = { db: deps.db, readDb: db };
  const further = await Promise.all(references.map((r) => furtherTicket(deps, r, reads)));
  const combined = combinedSale([{ sale: first }, ...further], buyerTicketField);
  const [, ...sales] = combined.sales;
  return { record: combined.record, sales };
}
