/**
 * A cancellation request's states and how SAT's status answers move it (issue #38: nothing polled forever).
 *
 *   REQUESTED ──PAC refuses──▶ FAILED (invoice ACTIVE again)
 *       │ PAC acknowledges, then SAT's status service is asked:
 *       ├─ Cancelado ──────────────────────────────▶ CANCELLED
 *       ├─ Solicitud rechazada ────────────────────▶ REJECTED
 *       ├─ waiting for the receptor ───────────────▶ PENDING ──past pendingMaxMs──▶ NEEDS_ATTENTION
 *       ├─ N - 602 (SAT does not know the CFDI yet) ▶ NOT_FOUND_AT_SAT ──past notFoundGraceMs──▶ NEEDS_ATTENTION
 *       └─ N - 601 (SAT could not read the question) ▶ NEEDS_ATTENTION
 *
 * PENDING and NOT_FOUND_AT_SAT are polled and move between each other as SAT's answers change. NEEDS_ATTENTION is
 * no longer polled: an operator retries it (back to PENDING, polled again with a fresh bound) or gives it up
 * (FAILED, the invoice ACTIVE: as if never asked; a new DELETE asks again, and SAT answers 202 if it had cancelled).
 */
export type CancellationStatus = 'REQUESTED' | 'PENDING' | 'NOT_FOUND_AT_SAT' | 'NEEDS_ATTENTION' | 'CANCELLED' | 'REJECTED' | 'FAILED';

export const CANCELLATION_MOVES: { readonly [S in CancellationStatus]: readonly CancellationStatus[] } = {
  REQUESTED: ['PENDING', 'NOT_FOUND_AT_SAT', 'NEEDS_ATTENTION', 'CANCELLED', 'REJECTED', 'FAILED'],
  PENDING: ['NOT_FOUND_AT_SAT', 'NEEDS_ATTENTION', 'CANCELLED', 'REJECTED'],
  NOT_FOUND_AT_SAT: ['PENDING', 'NEEDS_ATTENTION', 'CANCELLED', 'REJECTED'],
  NEEDS_ATTENTION: ['PENDING', 'FAILED'],
  CANCELLED: [],
  REJECTED: [],
  FAILED: [],
};

/** Still the invoice's current request: one at most per invoice (a unique index over these). */
export const OPEN_CANCELLATION_STATUSES = ['REQUESTED', 'PENDING', 'NOT_FOUND_AT_SAT', 'NEEDS_ATTENTION'] as const satisfies readonly CancellationStatus[];

/** Asked about at SAT by the poll. */
export const POLLED_CANCELLATION_STATUSES = ['PENDING', 'NOT_FOUND_AT_SAT'] as const satisfies readonly CancellationStatus[];

/**
 * Why a request needs someone: SAT never learned of the CFDI within the grace (`not_found_at_sat`), SAT could not
 * read the expression the service asked with (`sat_rejected_expression`: a fault of ours, no wait mends it), or
 * the receptor's answer has not come long past SAT's three business days (`pending_too_long`).
 */
export type AttentionCause = 'not_found_at_sat' | 'sat_rejected_expression' | 'pending_too_long';

export const ATTENTION_CAUSES = ['not_found_at_sat', 'sat_rejected_expression', 'pending_too_long'] as const satisfies readonly AttentionCause[];

/** SAT's status answer as the lifecycle reads it (the status client's SatCfdiStatus has these fields). */
export interface SatReading {
  query: 'found' | 'not_found' | 'invalid_expression';
  /** Estado: Vigente, Cancelado. */
  state: string;
  /** EstatusCancelacion: En proceso, Solicitud rechazada, … */
  cancellationStatus: string;
}

export interface CancellationBounds {
  /** How long a CFDI SAT's status service does not know is asked about again before it needs attention. */
  notFoundGraceMs: number;
  /** How long a request may wait for the receptor before it needs attention. */
  pendingMaxMs: number;
}

export interface CancellationStep {
  to: CancellationStatus;
  /** Set when `to` is NEEDS_ATTENTION. */
  cause?: AttentionCause;
}

/**
 * Where SAT's answer puts a request that is `status` since `since`; `to` equal to `status` means it stays (and is
 * asked again next round).
 */
export function followCancellation(current: { status: CancellationStatus; since: Date }, sat: SatReading, now: Date, bounds: CancellationBounds): CancellationStep {
  const elapsed = now.getTime() - current.since.getTime();
  if (sat.query === 'invalid_expression') return { to: 'NEEDS_ATTENTION', cause: 'sat_rejected_expression' };
  if (sat.query === 'not_found') {
    if (current.status !== 'NOT_FOUND_AT_SAT') return { to: 'NOT_FOUND_AT_SAT' };
    return elapsed > bounds.notFoundGraceMs ? { to: 'NEEDS_ATTENTION', cause: 'not_found_at_sat' } : { to: 'NOT_FOUND_AT_SAT' };
  }
  if (sat.state === 'Cancelado') return { to: 'CANCELLED' };
  if (sat.cancellationStatus === 'Solicitud rechazada') return { to: 'REJECTED' };
  if (current.status !== 'PENDING') return { to: 'PENDING' };
  return elapsed > bounds.pendingMaxMs ? { to: 'NEEDS_ATTENTION', cause: 'pending_too_long' } : { to: 'PENDING' };
}
