import { AppError } from '../../shared/platform/errors.js';
import { encryptionKeyring } from '../../shared/platform/crypto/encrypt-at-rest.js';
import { OFFLINE_LINK_VERSION, offlineTicketSigned, readOfflineTicket, type OfflineTicket, type OfflineTicketParams } from '../../shared/offline/offline-ticket.js';
import { checkOfflineTicket, offlineTicketClosesAt, type OfflineKeyState } from '../../shared/offline/offline-ticket-check.js';
import { claimMerchant, type ClaimMerchant } from '../../shared/repositories/offline-claims.js';
import { loadOfflineKeyState } from '../../shared/repositories/offline-keys.js';
import { tokenForOfflineTicket } from '../../shared/repositories/qr-transactions.js';
import { qrContent, signQrToken } from '../../shared/qr/qr-link.js';
import type { ApiDeps } from '../deps.js';

export function isOfflineTicketLink(query: { v?: unknown }): boolean {
  return query.v === OFFLINE_LINK_VERSION;
}

/** A scanned offline ticket, signed by a known key, and the link of its sale once the POS has posted it. */
export interface ScannedTicket {
  ticket: OfflineTicket;
  params: OfflineTicketParams;
  key: OfflineKeyState;
  saleLink: string | undefined;
}

/**
 * The ticket behind the parameters of a version-2 link. One 400 for every link not signed by a known
 * offline key, like a bad v=1 signature: a forger learns nothing about keys.
 */
export async function scanOfflineTicket(deps: ApiDeps, query: Record<string, unknown>): Promise<ScannedTicket> {
  const read = readOfflineTicket(query);
  const key = read.ok ? await loadOfflineKeyState(deps.db, read.ticket.keyId, encryptionKeyring(deps.config)) : undefined;
  if (!read.ok || !key || !offlineTicketSigned(read.params, key.secret)) {
    throw new AppError(400, 'invalid_signature', 'This QR link is not valid; scan the QR again.');
  }
  const token = await tokenForOfflineTicket(deps.db, key.id, read.ticket.saleId);
  const saleLink = token ? qrContent(deps.config.publicBaseUrl, signQrToken(token, deps.config.qrHmacKey)) : undefined;
  return { ticket: read.ticket, params: read.params, key, saleLink };
}

/** Why a ticket whose sale has not arrived can no longer be invoiced, if it cannot. */
function closedBecause(scanned: ScannedTicket, now: Date): 'key_revoked' | 'window_passed' | undefined {
  const check = checkOfflineTicket(scanned.ticket, scanned.params, scanned.key, undefined, now);
  if (check.ok) return undefined;
  return check.refusal === 'key_revoked' ? 'key_revoked' : 'window_passed';
}

/** 410 when a ticket whose sale has not arrived can no longer be invoiced (window passed, key revoked). */
export function ensureTicketOpen(scanned: ScannedTicket, now: Date): void {
  const reason = closedBecause(scanned, now);
  if (reason === 'key_revoked') throw new AppError(410, 'offline_ticket_closed', 'The store stopped using the key this ticket was printed with; ask the store for help.');
  if (reason) throw new AppError(410, 'offline_ticket_closed', 'The store did not send this sale in time to invoice it; ask the store for help.');
}

/** The store of a ticket, when it can invoice (else 422 `store_inactive`, as for a sale's page and API). */
export async function activeTicketMerchant(deps: ApiDeps, scanned: ScannedTicket): Promise<ClaimMerchant> {
  const merchant = await claimMerchant(deps.db, scanned.key.merchantId);
  if (!merchant || merchant.status !== 'ACTIVE' || merchant.issuerStatus !== 'ACTIVE') {
    throw new AppError(422, 'store_inactive', 'This store cannot issue invoices at the moment; contact the store.');
  }
  return merchant;
}

/** A ticket whose sale has not arrived yet and can still be invoiced: what the waiting page shows and posts. */
export interface PendingTicket {
  ticket: OfflineTicket;
  params: OfflineTicketParams;
  merchant: ClaimMerchant;
  closesAt: Date;
  /** Its key's currency: the ticket's total is in it. */
  currency: string;
}

/** A ticket whose sale never arrived and can no longer arrive: why, and what the page shows of it and its store. */
export interface ClosedTicket {
  ticket: OfflineTicket;
  reason: 'key_revoked' | 'window_passed';
  merchant: ClaimMerchant | undefined;
  closesAt: Date;
  currency: string;
}

/**
 * Where a scanned offline ticket leads: the link of the sale that caught it up, which the page and the
 * buyer's API treat as any other; before the sale arrives, the ticket and its store (the waiting page,
 * where the buyer may leave their data); when it never can arrive, why (the page says so with the ticket and
 * the store's contact). 422 when the store cannot invoice.
 */
export async function offlineTicketTarget(
  deps: ApiDeps,
  query: Record<string, unknown>,
  now: Date = new Date(),
): Promise<{ saleLink: string } | { pending: PendingTicket } | { closed: ClosedTicket }> {
  const scanned = await scanOfflineTicket(deps, query);
  if (scanned.saleLink) return { saleLink: scanned.saleLink };
  const closesAt = offlineTicketClosesAt(scanned.ticket, scanned.key);
  const reason = closedBecause(scanned, now);
  const currency = scanned.key.currency;
  if (reason) return { closed: { ticket: scanned.ticket, reason, merchant: await claimMerchant(deps.db, scanned.key.merchantId), closesAt, currency } };
  return { pending: { ticket: scanned.ticket, params: scanned.params, merchant: await activeTicketMerchant(deps, scanned), closesAt, currency } };
}
