/**
 * poll-cancellations: PostgreSQL is the truth. Requests waiting for the receptor are asked about at SAT
 * (accepted, rejected, or deemed accepted after three business days); requests still REQUESTED a while
 * after their last change lost their job (Redis flushed, the enqueue after commit failed, retries ran
 * out) and are queued again.
 */
import { enqueueCancellation } from '../shared/cancellation/enqueue-cancellation.js';
import { PacUnavailable } from '../shared/adapters/pac/pac-client.js';
import type { Producers } from '../shared/platform/queues.js';
import { moveCancellation, openCancellations, touchCancellation } from '../shared/repositories/invoice-cancellations.js';
import { findInvoice } from '../shared/repositories/invoices.js';
import { cancellationOutcome, statusQueryOf, type CancelDeps } from './cancel-invoice.js';
import { enqueueCancellationEmail } from './email-cancellation.js';

const BATCH = 500;
/** A request this old and still unsent lost its job; younger ones may just be waiting in the queue. */
const REQUEUE_AFTER_MS = 60_000;

export async function pollCancellationsJob(deps: CancelDeps & { producers: Producers }, now = new Date()): Promise<{ resolved: number; requeued: number }> {
  const open = await openCancellations(deps.db, new Date(now.getTime() - REQUEUE_AFTER_MS), BATCH);
  let resolved = 0;
  let requeued = 0;
  for (const { id, status, invoice_id: invoiceId } of open) {
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
    const outcome = cancellationOutcome(sat);
    if (outcome === 'PENDING') {
      await touchCancellation(deps.db, id);
    } else if (await moveCancellation(deps.db, id, ['PENDING'], outcome, { satStatus: sat.cancellationStatus })) {
      resolved++;
      if (outcome === 'CANCELLED') await enqueueCancellationEmail(deps.producers, invoice.id);
    }
  }
  return { resolved, requeued };
}
