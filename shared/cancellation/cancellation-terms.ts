/**
 * What SAT will do with a cancellation request, told before it is sent: cancel at once or ask the receptor
 * (RMF 2.7.1.35), or refuse because the period to cancel is over (RMF 2.7.1.46). The PAC and SAT have the
 * last word; this is what the service promises the merchant in the DELETE answer.
 */
import { dec } from '../domain/money.js';
import { checkRfc } from '../domain/tax-id/check-rfc.js';

export type CancellationAcceptance = 'NOT_REQUIRED' | 'REQUIRED';

/** Why SAT cancels without the receptor, or `receptor_must_accept`. */
export type AcceptanceReason = 'not_income' | 'amount_up_to_1000' | 'publico_en_general' | 'foreign_receptor' | 'next_business_day' | 'receptor_must_accept';

export interface CancellationTermsInput {
  /** TipoDeComprobante: I, E, T, N or P. */
  type: string;
  total: string;
  /** TipoCambio; 1 for MXN. */
  exchangeRate: string;
  issuerRfc: string;
  receptorRfc: string;
  stampedAt: Date;
  now: Date;
}

export type CancellationTerms = { cancellable: true; acceptance: CancellationAcceptance; reason: AcceptanceReason } | { cancellable: false; reason: 'period_over'; deadline: Date };

/** Central Mexico has kept UTC−6 all year since 2022; SAT's dates are its calendar dates. */
const MEXICO_OFFSET_MS = -6 * 3600_000;
const DAY_MS = 86_400_000;

/** The calendar date in central Mexico, as a UTC midnight (for day arithmetic). */
function mexicoDate(at: Date): Date {
  const shifted = new Date(at.getTime() + MEXICO_OFFSET_MS);
  return new Date(Date.UTC(shifted.getUTCFullYear(), shifted.getUTCMonth(), shifted.getUTCDate()));
}

/** The instant a central-Mexico calendar date (UTC midnight form) ends. */
function endOfMexicoDay(date: Date): Date {
  return new Date(date.getTime() + DAY_MS - MEXICO_OFFSET_MS - 1);
}

function nthMonday(year: number, month: number, n: number): number {
  const first = new Date(Date.UTC(year, month, 1)).getUTCDay();
  return 1 + ((8 - first) % 7) + (n - 1) * 7;
}

/**
 * Statutory rest days (Ley Federal del Trabajo, art. 74). SAT also declares some days of its own (Holy
 * Thursday and Friday); counting those as business days only makes our "next business day" earlier than
 * SAT's, so the service may say REQUIRED where SAT would not, never the reverse.
 */
function isRestDay(date: Date): boolean {
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const day = date.getUTCDate();
  const weekday = date.getUTCDay();
  if (weekday === 0 || weekday === 6) return true;
  return (
    (month === 0 && day === 1) ||
    (month === 1 && day === nthMonday(year, 1, 1)) ||
    (month === 2 && day === nthMonday(year, 2, 3)) ||
    (month === 4 && day === 1) ||
    (month === 8 && day === 16) ||
    (month === 9 && day === 1 && (year - 2024) % 6 === 0) ||
    (month === 10 && day === nthMonday(year, 10, 3)) ||
    (month === 11 && day === 25)
  );
}

/** The end of the business day that follows the day of `at` (central Mexico). */
export function endOfNextBusinessDay(at: Date): Date {
  let date = new Date(mexicoDate(at).getTime() + DAY_MS);
  while (isRestDay(date)) date = new Date(date.getTime() + DAY_MS);
  return endOfMexicoDay(date);
}

/**
 * The last moment to cancel: the end of the month in which the annual return for the year of issue is due
 * (March of the next year for companies, April for individuals).
 */
export function cancellationDeadline(issuerRfc: string, stampedAt: Date): Date {
  const checked = checkRfc(issuerRfc);
  const lastMonth = checked.ok && checked.personType === 'natural' ? 3 : 2;
  const year = mexicoDate(stampedAt).getUTCFullYear() + 1;
  return endOfMexicoDay(new Date(Date.UTC(year, lastMonth + 1, 0)));
}

const GENERIC_RECEPTOR = 'XAXX010101000';
const FOREIGN_RECEPTOR = 'XEXX010101000';

export function cancellationTerms(input: CancellationTermsInput): CancellationTerms {
  const deadline = cancellationDeadline(input.issuerRfc, input.stampedAt);
  if (input.now.getTime() > deadline.getTime()) return { cancellable: false, reason: 'period_over', deadline };
  const atOnce = (reason: AcceptanceReason): CancellationTerms => ({ cancellable: true, acceptance: 'NOT_REQUIRED', reason });
  if (input.type === 'E' || input.type === 'T' || input.type === 'N') return atOnce('not_income');
  // A payment complement is not covered by the amount rule.
  if (
    input.type !== 'P' &&
    dec(input.total)
      .times(dec(input.exchangeRate || '1'))
      .lte(1000)
  )
    return atOnce('amount_up_to_1000');
  if (input.receptorRfc === GENERIC_RECEPTOR) return atOnce('publico_en_general');
  if (input.receptorRfc === FOREIGN_RECEPTOR) return atOnce('foreign_receptor');
  if (input.now.getTime() <= endOfNextBusinessDay(input.stampedAt).getTime()) return atOnce('next_business_day');
  return { cancellable: true, acceptance: 'REQUIRED', reason: 'receptor_must_accept' };
}
