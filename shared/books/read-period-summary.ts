/**
 * Reads and adds up a period of the merchant's books (issue #32) for GET /v1/qrs/invoices/summary and the
 * operator's status page: the five groups of figures are read concurrently (each one indexed range per
 * merchant, summed in PostgreSQL) and put together by period-summary.ts.
 */
import type { Db } from '../platform/db.js';
import { creditedInvoices, merchantIssuers, paidInvoices, periodCfdis, periodDifferences, periodSales, type SummaryScope } from '../repositories/books-summary.js';
import { periodSummary, type MerchantSummary } from './period-summary.js';

export async function readPeriodSummary(db: Db, scope: SummaryScope): Promise<MerchantSummary[]> {
  if (scope.merchantIds.length === 0) return [];
  const [merchants, sales, cfdis, credited, paid, differences] = await Promise.all([
    merchantIssuers(db, scope.merchantIds),
    periodSales(db, scope),
    periodCfdis(db, scope),
    creditedInvoices(db, scope),
    paidInvoices(db, scope),
    periodDifferences(db, scope),
  ]);
  return periodSummary({ merchants, sales, cfdis, credited, paid, differences });
}
