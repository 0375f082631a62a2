import type { MerchantSummary } from '../../../shared/books/period-summary.js';

/** GET /v1/qrs/invoices/summary's answer (period-summary-schema.ts): the period asked for and one summary per merchant. */
export function periodSummaryView(period: { from: string; to: string; timeZone: string }, merchants: MerchantSummary[]) {
  return { period: { from: period.from, to: period.to, time_zone: period.timeZone }, items: merchants };
}
