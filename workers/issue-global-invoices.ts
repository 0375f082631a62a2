/**
 * issue-global-invoices (every GLOBAL_INVOICE_CHECK_MS): every merchant period closed at least
 * GLOBAL_INVOICE_GRACE_MS ago with unclaimed sales gets its global invoices; running it again finds
 * nothing left to report.
 */
import type { Config } from '../shared/platform/config.js';
import type { Db } from '../shared/platform/db.js';
import { reportPeriods } from '../shared/global-invoice/report-periods.js';
import type { Producers } from '../shared/platform/queues.js';
import { unreportedPeriods } from '../shared/repositories/global-invoices.js';

export async function issueGlobalInvoicesJob(db: Db, producers: Producers, config: Readonly<Config>, now = new Date()): Promise<{ invoices: number }> {
  const periods = await unreportedPeriods(db, new Date(now.getTime() - config.globalInvoiceGraceMs));
  return { invoices: (await reportPeriods(db, producers, periods)).length };
}
