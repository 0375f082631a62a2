/**
 * A QR's states and moves, and the expiry rule, in one place (issue #20).
 *
 *   PENDING ──scan──▶ SCANNED ──stamped──▶ INVOICED ──invoice cancelled──▶ CANCELLED
 *      │                 │
 *      ├── expiry ───────┴──▶ EXPIRED (also when reported in the global invoice)
 *      └── merchant cancels (PENDING or SCANNED) ──▶ CANCELLED
 *
 * EXPIRED and CANCELLED are final. A QR whose confirmation is being stamped (confirmed_at set) does not
 * expire under the buyer.
 */
export type QrStatus = 'PENDING' | 'SCANNED' | 'INVOICED' | 'EXPIRED' | 'CANCELLED';

/** A buyer may still open and confirm it; it can expire. */
export const OPEN_QR_STATUSES = ['PENDING', 'SCANNED'] as const satisfies readonly QrStatus[];

export const QR_MOVES: { readonly [S in QrStatus]: readonly QrStatus[] } = {
  PENDING: ['SCANNED', 'INVOICED', 'EXPIRED', 'CANCELLED'],
  SCANNED: ['INVOICED', 'EXPIRED', 'CANCELLED'],
  INVOICED: ['CANCELLED'],
  EXPIRED: [],
  CANCELLED: [],
};

/** Only an INVOICED QR, or one CANCELLED with its invoice, has a stamped invoice to show. */
export function mayHaveStampedInvoice(status: QrStatus): boolean {
  return status === 'INVOICED' || status === 'CANCELLED';
}

export function isOpenQr(status: QrStatus): boolean {
  return (OPEN_QR_STATUSES as readonly QrStatus[]).includes(status);
}

/**
 * The expiry rule: EXPIRED, or open with its expires_at passed and no confirmation being stamped. The
 * expiry jobs apply the same rule in SQL (shared/repositories/qr-transactions.ts, expireQrTransactions).
 */
export function isExpired(qr: { status: QrStatus; expires_at: Date; confirmed_at: Date | null }, now: Date): boolean {
  return qr.status === 'EXPIRED' || (isOpenQr(qr.status) && qr.expires_at.getTime() <= now.getTime() && qr.confirmed_at === null);
}
