/**
 * The figures of the operator's status page (GET /admin/status), read from PostgreSQL, the record every
 * process shares: the last 24 hours of QR transitions and stamps, hour by hour. Each count is bounded to the
 * window by its timestamp's index (migration 20261126090000), so the page costs a day of rows, not the tables.
 */
import type { Db } from '../platform/db.js';

export const HOUR_MS = 3_600_000;
export const WINDOW_HOURS = 24;

/** Stamp latency: from the confirmation (or the request of a credit note, complement or global invoice) to the PAC's stamp. */
export interface StampLatency {
  stamped: number;
  p50Seconds: number | null;
  p95Seconds: number | null;
  maxSeconds: number | null;
}

export interface HourFigures extends StampLatency {
  /** The hour's start (UTC). */
  hour: Date;
  /** QRs: created, first opened by the buyer (or confirmed by the merchant), invoiced (by a stamped CFDI), expired. */
  created: number;
  scanned: number;
  invoiced: number;
  expired: number;
  /** Confirmations the PAC (or Anexo 20's arithmetic) refused. */
  refused: number;
}

export interface StatusFigures {
  from: Date;
  to: Date;
  /** WINDOW_HOURS hours, oldest first; the last one is the current hour, so far. */
  hours: HourFigures[];
  /** The whole window. */
  day: StampLatency & { refused: number };
  /** The refusals' SAT codes in the window, most frequent first (at most five). */
  refusalCodes: { code: string; count: number }[];
  /** CFDIs waiting for their stamp now, and since when the oldest one waits. */
  stamping: { count: number; oldestSince: Date | null };
}

/** The window: the current hour and the 23 before it. */
export function statusWindow(now: Date): { from: Date; to: Date } {
  const to = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS);
  return { from: new Date(to.getTime() - WINDOW_HOURS * HOUR_MS), to };
}

const hourOf = (column: string) => `floor(extract(epoch from ${column}) / 3600)::bigint`;
type Count = 'created' | 'scanned' | 'invoiced' | 'expired' | 'refused';

/**
 * An invoice's tickets, counted by a probe of invoice_tickets' primary key (invoice_id, position) per
 * invoice of the window. A join left the choice to the planner, which hash-joined the day's invoices with a
 * sequential scan of every ticket ever written (issue #30: 504,000 rows, 100 ms at 10,000,000 sales); a
 * correlated subquery is a probe by construction, so the cost follows the day's invoices, not the history.
 */
const TICKETS_OF = (invoice: string) => `(SELECT count(*) FROM invoice_tickets t WHERE t.invoice_id = ${invoice}.id)`;

/** Per kind and hour (epoch hours); each branch is a range scan of one index. */
const HOURLY_COUNTS = `
  SELECT 'created' AS kind, ${hourOf('created_at')} AS hour, count(*)::int AS n FROM qr_transactions
    WHERE created_at >= :from AND created_at < :to GROUP BY 2
  UNION ALL SELECT 'scanned', ${hourOf('scanned_at')}, count(*)::int FROM qr_transactions
    WHERE scanned_at >= :from AND scanned_at < :to GROUP BY 2
  UNION ALL SELECT 'expired', ${hourOf('expired_at')}, count(*)::int FROM qr_transactions
    WHERE expired_at >= :from AND expired_at < :to GROUP BY 2
  UNION ALL SELECT 'invoiced', ${hourOf('i.stamped_at')}, sum(${TICKETS_OF('i')})::int FROM invoices i
    WHERE i.stamped_at >= :from AND i.stamped_at < :to GROUP BY 2
  UNION ALL SELECT 'refused', ${hourOf('updated_at')}, count(*)::int FROM invoices
    WHERE status = 'REFUSED' AND updated_at >= :from AND updated_at < :to GROUP BY 2`;

/**
 * Percentiles per hour and for the whole window (the row whose hour is null). stamped_at is the PAC's
 * FechaTimbrado, to the second: a stamp within the second of its confirmation can read as 0 s, never less.
 */
const STAMP_LATENCY = `
  SELECT hour, count(*)::int AS stamped,
    percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) AS p50,
    percentile_cont(0.95) WITHIN GROUP (ORDER BY seconds) AS p95,
    max(seconds) AS max
  FROM (SELECT ${hourOf('stamped_at')} AS hour, greatest(0, extract(epoch from stamped_at - created_at))::float8 AS seconds
        FROM invoices WHERE stamped_at >= :from AND stamped_at < :to) stamps
  GROUP BY GROUPING SETS ((hour), ())`;

/** The SAT rule the PAC (or the service's own Anexo 20 check) cited, e.g. CFDI40145; else the refusal's own code. */
const REFUSAL_CODES = `
  SELECT coalesce(refusal->'details'->0->>'pac_code', refusal->>'code', 'unknown') AS code, count(*)::int AS count FROM invoices
  WHERE status = 'REFUSED' AND updated_at >= :from AND updated_at < :to
  GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5`;

const STAMPING_NOW = `SELECT count(*)::int AS count, min(created_at) AS oldest FROM invoices WHERE status = 'STAMPING'`;

/** Every statement the page runs, each bounded by an index (a test reads their plans). */
export const STATUS_QUERIES = { hourlyCounts: HOURLY_COUNTS, stampLatency: STAMP_LATENCY, refusalCodes: REFUSAL_CODES, stampingNow: STAMPING_NOW };

interface LatencyRow {
  hour: string | null;
  stamped: number;
  p50: number | null;
  p95: number | null;
  max: number | null;
}

const latencyOf = (row: LatencyRow | undefined): StampLatency => ({
  stamped: row?.stamped ?? 0,
  p50Seconds: row?.p50 ?? null,
  p95Seconds: row?.p95 ?? null,
  maxSeconds: row?.max ?? null,
});

export async function readStatusFigures(db: Db, now: Date = new Date()): Promise<StatusFigures> {
  const { from, to } = statusWindow(now);
  const bounds = { from, to };
  const [counts, latency, codes, stamping] = await Promise.all([
    db.raw<{ rows: { kind: Count; hour: string; n: number }[] }>(STATUS_QUERIES.hourlyCounts, bounds),
    db.raw<{ rows: LatencyRow[] }>(STATUS_QUERIES.stampLatency, bounds),
    db.raw<{ rows: { code: string; count: number }[] }>(STATUS_QUERIES.refusalCodes, bounds),
    db.raw<{ rows: { count: number; oldest: Date | null }[] }>(STATUS_QUERIES.stampingNow),
  ]);
  const firstHour = from.getTime() / HOUR_MS;
  const hours: HourFigures[] = Array.from({ length: WINDOW_HOURS }, (_, i) => ({
    hour: new Date((firstHour + i) * HOUR_MS),
    created: 0,
    scanned: 0,
    invoiced: 0,
    expired: 0,
    refused: 0,
    ...latencyOf(undefined),
  }));
  // int8 comes back as a string (shared/platform/db.ts); an hour is a small number.
  const at = (hour: string) => hours[Number(hour) - firstHour];
  for (const row of counts.rows) {
    const figures = at(row.hour);
    if (figures) figures[row.kind] = row.n;
  }
  for (const row of latency.rows) {
    const figures = row.hour === null ? undefined : at(row.hour);
    if (figures) Object.assign(figures, latencyOf(row));
  }
  const stamped = stamping.rows[0];
  return {
    from,
    to,
    hours,
    day: { ...latencyOf(latency.rows.find((r) => r.hour === null)), refused: hours.reduce((sum, h) => sum + h.refused, 0) },
    refusalCodes: codes.rows,
    stamping: { count: stamped?.count ?? 0, oldestSince: stamped?.oldest ?? null },
  };
}
