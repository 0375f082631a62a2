/**
 * An invoice's (any stamped document's: I, E, P) states and moves, in one place (issue #20).
 *
 *   STAMPING ──PAC stamps──▶ ACTIVE ──cancel asked──▶ CANCELLING ──PAC──▶ CANCELLED
 *      │                       ▲                         │
 *      └──PAC refuses──▶ REFUSED │                         └──receptor must answer──▶ CANCELLATION_PENDING
 *                              └── CANCELLATION_REJECTED ◀── receptor says no ──────────────┘ (or ▶ CANCELLED)
 *
 * REFUSED and CANCELLED are final. A refused confirmation stamped no CFDI: its folio is reused.
 * CANCELLATION_PENDING also covers a request SAT's status service does not find yet and one that needs an operator
 * (shared/domain/cancellation-lifecycle.ts); giving such a request up puts the invoice back to ACTIVE.
 */
export type InvoiceStatus = 'STAMPING' | 'REFUSED' | 'ACTIVE' | 'CANCELLING' | 'CANCELLATION_PENDING' | 'CANCELLED' | 'CANCELLATION_REJECTED';

export const INVOICE_MOVES: { readonly [S in InvoiceStatus]: readonly InvoiceStatus[] } = {
  STAMPING: ['ACTIVE', 'REFUSED'],
  REFUSED: [],
  ACTIVE: ['CANCELLING'],
  // Back to ACTIVE when the cancellation failed (the PAC refused it: SW's CACFDI33, the cause such as CA205 in its messageDetail).
  CANCELLING: ['CANCELLED', 'CANCELLATION_PENDING', 'CANCELLATION_REJECTED', 'ACTIVE'],
  // Back to ACTIVE when an operator gives up a request that needs attention.
  CANCELLATION_PENDING: ['CANCELLED', 'CANCELLATION_REJECTED', 'ACTIVE'],
  CANCELLATION_REJECTED: ['CANCELLING'],
  CANCELLED: [],
};

/** Valid before SAT: what can be credited, paid or cancelled. */
export const VALID_INVOICE_STATUSES = ['ACTIVE', 'CANCELLATION_REJECTED'] as const satisfies readonly InvoiceStatus[];

/** Not a live document: never stamped (REFUSED) or void (CANCELLED). */
export const DEAD_INVOICE_STATUSES = ['REFUSED', 'CANCELLED'] as const satisfies readonly InvoiceStatus[];

/** Stamped: it has a fiscal UUID, whether still valid or cancelled since. */
export function isStampedStatus(status: InvoiceStatus): boolean {
  return status !== 'STAMPING' && status !== 'REFUSED';
}
