import type { Db } from '../platform/db.js';
import { enqueueStamp } from '../invoices/enqueue-stamp.js';
import type { Producers } from '../platform/queues.js';
import type { UnreportedPeriod } from '../repositories/global-invoices.js';
import { recordGlobalInvoices } from './record-global-invoices.js';
import type { InvoiceRow } from '../repositories/invoices.js';

/**
 * Refused global invoices of a period after which the scheduled job stops reporting it by itself: the same
 * refusal would come back every run. The period then needs attention (shared/status/needs-attention.ts).
 */
export const AUTOMATIC_REPORTS_PER_PERIOD = 3;

/**
 * Records the global invoices of these merchant periods and queues them for stamping (a lost enqueue is
 * re-queued by the stamping sweep). The scheduled job and the API's manual trigger both come here.
 */
export async function reportPeriods(db: Db, producers: Producers, periods: UnreportedPeriod[]): Promise<InvoiceRow[]> {
  const invoices: InvoiceRow[] = [];
  for (const p of periods) invoices.push(...(await recordGlobalInvoices(db, p.merchant_id, p.global_period_end, p.global_periodicity)));
  for (const invoice of invoices) await enqueueStamp(producers, invoice.id);
  return invoices;
}
