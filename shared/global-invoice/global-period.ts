/**
 * The period a sale is reported in when nobody invoices it (c_Periodicidad), in central Mexico's calendar
 * (UTC−6 all year since 2022). Periods never straddle two months, so InformacionGlobal's Meses is always
 * the one month they lie in: a week that spans a month's end is cut there.
 */
export type GlobalPeriodicity = '01' | '02' | '03' | '04';

export const GLOBAL_PERIODICITIES: readonly GlobalPeriodicity[] = ['01', '02', '03', '04'];

export interface GlobalPeriod {
  periodicity: GlobalPeriodicity;
  start: Date;
  /** Exclusive: the instant the period closes. */
  end: Date;
  /** c_Meses: the month, `01`–`12`. */
  months: string;
  year: number;
}

const OFFSET_MS = 6 * 3600_000;
const DAY_MS = 86_400_000;

/** A central-Mexico calendar day as the instant it starts. */
function mexicoMidnight(year: number, month: number, day: number): Date {
  return new Date(Date.UTC(year, month, day) + OFFSET_MS);
}

export function globalPeriod(at: Date, periodicity: GlobalPeriodicity): GlobalPeriod {
  const local = new Date(at.getTime() - OFFSET_MS);
  const year = local.getUTCFullYear();
  const month = local.getUTCMonth();
  const day = local.getUTCDate();
  const monthStart = mexicoMidnight(year, month, 1);
  const monthEnd = mexicoMidnight(year, month + 1, 1);
  let start: Date;
  let end: Date;
  switch (periodicity) {
    case '01':
      start = mexicoMidnight(year, month, day);
      end = new Date(start.getTime() + DAY_MS);
      break;
    case '02': {
      // Monday to Sunday, cut at the month's edges.
      const weekday = (local.getUTCDay() + 6) % 7;
      start = new Date(Math.max(mexicoMidnight(year, month, day - weekday).getTime(), monthStart.getTime()));
      end = new Date(Math.min(mexicoMidnight(year, month, day - weekday + 7).getTime(), monthEnd.getTime()));
      break;
    }
    case '03':
      start = day <= 15 ? monthStart : mexicoMidnight(year, month, 16);
      end = day <= 15 ? mexicoMidnight(year, month, 16) : monthEnd;
      break;
    case '04':
      start = monthStart;
      end = monthEnd;
      break;
  }
  return { periodicity, start, end, months: String(month + 1).padStart(2, '0'), year };
}

/** The period that closes at `end` (as stored with each sale). */
export function globalPeriodEndingAt(end: Date, periodicity: GlobalPeriodicity): GlobalPeriod {
  return globalPeriod(new Date(end.getTime() - 1), periodicity);
}

/**
 * A QR never outlives its period: a sale must be claimable or reported, never both nor neither. The
 * expiry is cut at the close; the global invoice is issued after a grace that lets confirmations in flight
 * at the close finish stamping.
 */
export function capExpiry(requested: Date, period: GlobalPeriod): { expiresAt: Date; capped: boolean } {
  return requested.getTime() > period.end.getTime() ? { expiresAt: period.end, capped: true } : { expiresAt: requested, capped: false };
}
