/**
 * What the status page's books section shows (issue #32): the `merchant` and `month` query parameters read
 * (the store as the operator knows it — its name or part of it, the POS's store id, the merchant id or the
 * issuer's RFC (issue #39) —, a YYYY-MM month; default the current month on Mexico City's clocks) and that month
 * of the store's books added up; several stores matching are listed to pick from. Said on the page, never thrown.
 */
import { readPeriodSummary } from '../../shared/books/read-period-summary.js';
import { localDateTime, nextDay, zonedDayStart } from '../../shared/domain/time-zone.js';
import type { Db } from '../../shared/platform/db.js';
import { DEFAULT_BOOKS_TIME_ZONE } from '../books/books-request.js';
import { findStores } from '../../shared/repositories/merchants.js';
import type { BooksPanel } from './books-summary-section.js';

/** The stores a search lists to pick from. */
export const STORE_CHOICES = 20;
const STORE_TEXT_MAX = 100;
// Years as the books take them (api/books/books-request.ts): 9999-12 would end in a month that is no date.
const MONTH = /^(19[7-9][0-9]|2[0-9]{3})-(0[1-9]|1[0-2])$/;

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The month's first day and the next month's first day (YYYY-MM-DD). */
function monthDays(month: string): { first: string; afterLast: string } {
  const [year, m] = month.split('-').map(Number) as [number, number];
  const first = `${month}-01`;
  const last = new Date(Date.UTC(year, m, 0)).toISOString().slice(0, 10);
  return { first, afterLast: nextDay(last) };
}

export async function booksPanel(db: Db, query: Record<string, string | string[] | undefined>, now: Date): Promise<BooksPanel> {
  const asked = one(query.month);
  const month = asked !== undefined && MONTH.test(asked) ? asked : localDateTime(now, DEFAULT_BOOKS_TIME_ZONE).slice(0, 7);
  const merchant = one(query.merchant)?.trim();
  if (merchant === undefined || merchant === '') return { month };
  if (merchant.length > STORE_TEXT_MAX) return { merchant, month, problem: `Name a store in at most ${STORE_TEXT_MAX} characters.` };
  const stores = await findStores(db, merchant, STORE_CHOICES + 1);
  const exact = stores.filter((s) => s.id === merchant || s.external_merchant_id === merchant || s.rfc === merchant.toUpperCase());
  const chosen = exact.length === 1 ? exact : stores.length === 1 ? stores : [];
  if (chosen.length === 0) {
    if (stores.length === 0) return { merchant, month, problem: `No store matches "${merchant}" (a name or part of it, a store id, a merchant id or an RFC).` };
    return { merchant, month, choices: stores.slice(0, STORE_CHOICES), more: stores.length > STORE_CHOICES };
  }
  const { first, afterLast } = monthDays(month);
  const [summary] = await readPeriodSummary(db, {
    merchantIds: [chosen[0]!.id],
    from: zonedDayStart(first, DEFAULT_BOOKS_TIME_ZONE),
    to: zonedDayStart(afterLast, DEFAULT_BOOKS_TIME_ZONE),
    now,
  });
  return summary ? { merchant, month, summary } : { merchant, month, problem: `No store matches "${merchant}".` };
}
