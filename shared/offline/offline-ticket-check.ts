import { Decimal } from 'decimal.js';
import { offlineShortCode, offlineTicketSigned, type OfflineTicket, type OfflineTicketParams } from './offline-ticket.js';

/** The parts of a stored offline key a ticket is checked against. */
export interface OfflineKeyState {
  id: string;
  merchantId: string;
  secret: Buffer;
  windowHours: number;
  /** Its tickets' currency: a ticket carries none (issue #39). */
  currency: string;
  revokedAt: Date | null;
  oldTicketsUntil: Date | null;
}

/** What a sale that catches up a ticket claims: its POS sale id, total and currency. */
export interface CatchUpClaim {
  merchantId: string;
  saleId: string;
  amount: string;
  currency: string;
}

export type TicketRefusal =
  | 'invalid' // unknown key, another store's key, or a signature that does not match
  | 'sold_in_future'
  | 'window_passed'
  | 'key_revoked'
  | 'sale_id_differs'
  | 'amount_differs'
  | 'currency_differs';

export type TicketCheck = { ok: true; soldAt: Date; shortCode: string } | { ok: false; refusal: TicketRefusal };

/** A POS clock may run a little ahead of ours. */
export const OFFLINE_CLOCK_SKEW_MS = 5 * 60_000;

/**
 * May this ticket be trusted now, for this sale? Pure: the caller loads the key. The order matters for
 * what is said: a forged or foreign ticket learns nothing about the key's state.
 */
export function checkOfflineTicket(ticket: OfflineTicket, params: OfflineTicketParams, key: OfflineKeyState | undefined, claim: CatchUpClaim | undefined, now: Date): TicketCheck {
  if (!key || (claim && key.merchantId !== claim.merchantId) || !offlineTicketSigned(params, key.secret)) return { ok: false, refusal: 'invalid' };
  const sold = ticket.soldAt.getTime();
  if (sold > now.getTime() + OFFLINE_CLOCK_SKEW_MS) return { ok: false, refusal: 'sold_in_future' };
  if (key.revokedAt && (sold >= key.revokedAt.getTime() || !key.oldTicketsUntil || now.getTime() > key.oldTicketsUntil.getTime())) {
    return { ok: false, refusal: 'key_revoked' };
  }
  if (now.getTime() - sold > key.windowHours * 3_600_000) return { ok: false, refusal: 'window_passed' };
  if (claim && claim.saleId !== ticket.saleId) return { ok: false, refusal: 'sale_id_differs' };
  if (claim && !new Decimal(claim.amount).equals(new Decimal(ticket.amount))) return { ok: false, refusal: 'amount_differs' };
  if (claim && claim.currency !== key.currency) return { ok: false, refusal: 'currency_differs' };
  return { ok: true, soldAt: ticket.soldAt, shortCode: offlineShortCode(params, key.secret) };
}

/** The last moment the ticket may catch up: its window, or its key's grace for older tickets if sooner. */
export function offlineTicketClosesAt(ticket: OfflineTicket, key: Pick<OfflineKeyState, 'windowHours' | 'oldTicketsUntil'>): Date {
  const window = ticket.soldAt.getTime() + key.windowHours * 3_600_000;
  return new Date(key.oldTicketsUntil ? Math.min(window, key.oldTicketsUntil.getTime()) : window);
}
