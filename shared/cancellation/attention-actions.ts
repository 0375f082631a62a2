/**
 * What an operator does with a cancellation that needs attention (NEEDS_ATTENTION, see
 * shared/domain/cancellation-lifecycle.ts). Both are moves of the request with its invoice and the merchant's
 * webhook event in one transaction; both answer undefined when the request is not (or no longer) waiting for one.
 */
import type { Db } from '../platform/db.js';
import { moveCancellation, type CancellationRow } from '../repositories/invoice-cancellations.js';

/**
 * Back to polling: PENDING, with its bounds counted afresh from `now`. The next poll asks SAT again and moves it on
 * as any other (not found again: NOT_FOUND_AT_SAT with a new grace). Nothing is re-sent: SAT already acknowledged
 * the request, and a new request would only be acknowledged again.
 */
export async function retryCancellation(db: Db, id: string, now = new Date()): Promise<CancellationRow | undefined> {
  return moveCancellation(db, id, ['NEEDS_ATTENTION'], 'PENDING', { now });
}

/**
 * Final: FAILED with an operator's refusal, the invoice ACTIVE again, as after a refusal by the PAC. The service no
 * longer claims anything about SAT's side; the merchant can DELETE again (a new request, which SAT answers 202 if it
 * did cancel the CFDI meanwhile, and that request ends CANCELLED).
 */
export async function giveUpCancellation(db: Db, id: string): Promise<CancellationRow | undefined> {
  return moveCancellation(db, id, ['NEEDS_ATTENTION'], 'FAILED', {
    refusal: {
      code: 'given_up',
      message: 'The service stopped following this request: SAT did not confirm it. Ask again to cancel the invoice.',
      detail: null,
      detail_code: null,
      source: 'operator',
    },
  });
}
