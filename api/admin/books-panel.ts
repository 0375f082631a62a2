/**
 * What the status page's books section shows (issue #32): the `merchant` and `month` query parameters read
 * (an id of the form merchant ids take, a YYYY-MM month; default the current month on Mexico City's clocks) and
 * that month of the merchant's books added up. A malformed or unknown merchant is said on the page, not thrown.
 */
import { readPeriodSummary } from '../../shared/books/read-period-summary.js';
import { localDateTime, nextDay, zonedDayStart } from '../../shared/domain/time-zone.js';
import type { Db } from '../../shared/platform/db.js';
import { DEFAULT_BOOKS_TIME_ZONE } from '../books/books-request.js';
import type { BooksPanel } from './books-summary-section.js';

const MERCHANT_ID = /^[A-Za-z0-9_-]{1,64}$/;
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
  if (!MERCHANT_ID.test(merchant)) return { merchant, month, problem: 'That is not a merchant id (mer_…).' };
  const { first, afterLast } = monthDays(month);
  const [summary] = await readPeriodSummary(db, {
    merchantIds: [merchant],
    from: zonedDayStart(first, DEFAULT_BOOKS_TIME_ZONE),
    to: zonedDayStart(afterLast, DEFAULT_BOOKS_TIME_ZONE),
    now,
  });
  return summary ? { merchant, month, summary } : { merchant, month, problem: `No merchant ${merchant}.` };
}
