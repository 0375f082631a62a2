/**
 * issue-global-invoices (every GLOBAL_INVOICE_CHECK_MS): every merchant period closed at least
 * GLOBAL_INVOICE_GRACE_MS ago with unclaimed sales gets its global invoices; running it again finds
 * nothing left to report. A refused global invoice releases its sales (recordRefusal), so the next run
 * reports them again; a period whose global invoices were refused AUTOMATIC_REPORTS_PER_PERIOD times is no
 * longer reported by this job (the same refusal would come back every run), only by the merchant's
 * POST /v1/qrs/issuers/{id}/global-invoices once the cause is put right.
 */
import type { Config } from '../shared/platform/config.js';
import type { Db } from '../shared/platform/db.js';
import { reportPeriods } from '../shared/global-invoice/report-periods.js';
import type { Producers } from '../shared/platform/queues.js';
import { refusedGlobalInvoices, unreportedPeriods } from '../shared/repositories/global-invoices.js';
import { AUTOMATIC_REPORTS_PER_PERIOD } from '../shared/global-invoice/report-periods.js';

export async function issueGlobalInvoicesJob(db: Db, producers: Producers, config: Readonly<Config>, now = new Date()): Promise<{ invoices: number }> {
  const periods = await unreportedPeriods(db, new Date(now.getTime() - config.globalInvoiceGraceMs));
  const due = [];
  for (const p of periods) if ((await refusedGlobalInvoices(db, p.merchant_id, p.global_period_end)) < AUTOMATIC_REPORTS_PER_PERIOD) due.push(p);
  return { invoices: (await reportPeriods(db, producers, due)).length };
}
