/**
 * poll-cancellations: PostgreSQL is the truth. Requests waiting for the receptor (PENDING) or for SAT's status
 * service to learn of the CFDI (NOT_FOUND_AT_SAT) are asked about at SAT and moved as its answer says
 * (shared/domain/cancellation-lifecycle.ts): accepted, rejected, deemed accepted after three business days, or,
 * past their bound (SAT_NOT_FOUND_GRACE_MS, CANCELLATION_PENDING_MAX_MS), NEEDS_ATTENTION, which is not polled
 * again. Requests still REQUESTED a while after their last change lost their job (Redis flushed, the enqueue after
 * commit failed, retries ran out) and are queued again.
 */
import { enqueueCancellation } from '../shared/cancellation/enqueue-cancellation.js';
import { PacUnavailable } from '../shared/adapters/pac/pac-client.js';
import { followCancellation } from '../shared/domain/cancellation-lifecycle.js';
import type { Producers } from '../shared/platform/queues.js';
import { moveCancellation, openCancellations, touchCancellation } from '../shared/repositories/invoice-cancellations.js';
import { findInvoice } from '../shared/repositories/invoices.js';
import { statusQueryOf, type CancelDeps } from './cancel-invoice.js';
import { enqueueCancellationEmail } from './email-cancellation.js';

const BATCH = 500;
/** A request this old and still unsent lost its job; younger ones may just be waiting in the queue. */
const REQUEUE_AFTER_MS = 60_000;

export async function pollCancellationsJob(deps: CancelDeps & { producers: Producers }, now = new Date()): Promise<{ resolved: number; requeued: number; needsAttention: number }> {
  const open = await openCancellations(deps.db, new Date(now.getTime() - REQUEUE_AFTER_MS), BATCH);
  let resolved = 0;
  let requeued = 0;
  let needsAttention = 0;
  for (const { id, status, invoice_id: invoiceId, status_since: since } of open) {
    if (status === 'REQUESTED') {
      await enqueueCancellation(deps.producers, id);
      requeued++;
      continue;
    }
    const invoice = await findInvoice(deps.db, invoiceId);
    if (!invoice) continue;
    let sat;
    try {
      sat = await deps.pac.status(await statusQueryOf(deps.files, invoice));
    } catch (err) {
      // SAT's service down: the rest wait for the next round.
      if (err instanceof PacUnavailable) break;
      throw err;
    }
    const step = followCancellation({ status, since }, sat, now, deps.bounds);
    if (step.to === status) {
      await touchCancellation(deps.db, id);
      continue;
    }
    const moved = await moveCancellation(deps.db, id, [status], step.to, { satStatus: sat.cancellationStatus, attentionCause: step.cause, now });
    if (!moved) continue;
    if (step.to === 'NEEDS_ATTENTION') needsAttention++;
    else if (step.to === 'CANCELLED' || step.to === 'REJECTED') resolved++;
    if (step.to === 'CANCELLED') await enqueueCancellationEmail(deps.producers, invoice.id);
  }
  return { resolved, requeued, needsAttention };
}
