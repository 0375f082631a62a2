import type { Db } from '../platform/db.js';
import { createMonthlyPartitions, partitionRanges, utcMonth, type PartitionRange } from '../platform/monthly-partitions.js';

/**
 * The months of sales (issue #41, docs/data-growth.md "Done: `qr_transactions`, `qr_concepts`, `qr_concept_taxes`"): qr_transactions and its lines
 * partitioned alike by month, made ahead and dropped whole once every CFDI built from a month's sales is past
 * its five years. The lines' partitions go first (their foreign keys point at the sale).
 */
const SALES = 'qr_transactions';
/** The lines, children first: each partition is dropped before its parent's. */
const LINES = ['qr_concept_taxes', 'qr_concepts'] as const;
/** Narrow unpartitioned tables holding the rules unique across months; a month's rows leave with it. */
const SIDE_TABLES = ['qr_sale_keys', 'qr_live_sales'] as const;
const SIDE_BATCH = 10_000;

/** How long a stamped CFDI is kept (Código Fiscal de la Federación, art. 30). */
export const CFDI_KEEP_YEARS = 5;

/** The partition's lower bound as PostgreSQL reads it (the legacy partition's is MINVALUE). */
const lowerBound = (range: PartitionRange): Date | string => range.from ?? '-infinity';

/** The CHECK each month of sales carries: the rows' ids and tokens carry their instant (see the migration). */
const keysCarryTime = (name: string) => `CONSTRAINT "${name}_keys_carry_time" CHECK (created_at = qr_key_instant(substr(id, 5)) AND created_at = qr_key_instant(token))`;

/** Creates the months from `from` to `to` (inclusive) the sales and their lines lack; answers the partitions made. */
export async function createSaleMonths(db: Db, from: Date, to: Date): Promise<string[]> {
  return [
    ...(await createMonthlyPartitions(db, SALES, from, to, keysCarryTime)),
    ...(await createMonthlyPartitions(db, 'qr_concepts', from, to)),
    ...(await createMonthlyPartitions(db, 'qr_concept_taxes', from, to)),
  ];
}

/**
 * The partitions of sales past their retention: a partition leaves `retentionMonths` after the start of the
 * month its last instant falls in (63: five years from a CFDI stamped up to three months after its sale).
 */
export async function expiredSaleMonths(db: Db, retentionMonths: number, now: Date): Promise<PartitionRange[]> {
  const leaving = utcMonth(now, -retentionMonths);
  return (await partitionRanges(db, SALES)).filter((r) => utcMonth(new Date(r.to.getTime() - 1)).getTime() <= leaving.getTime());
}

/**
 * A CFDI built from the partition's sales that is not past its five years (stamped after `now` − 5 years, or
 * not stamped yet): its id, or undefined when none is. Two index ranges: the self-invoices by their tickets'
 * sale instant (invoice_tickets_sale_created_idx), and the global invoices by a walk of the partition's
 * distinct global_invoice_id (one descent of qr_transactions_global_invoice_idx per global invoice).
 */
export async function youngCfdiOf(db: Db, range: PartitionRange, now: Date): Promise<string | undefined> {
  const since = new Date(now);
  since.setUTCFullYear(since.getUTCFullYear() - CFDI_KEEP_YEARS);
  const from = lowerBound(range);
  const young = `i.status <> 'REFUSED' AND (i.stamped_at IS NULL OR i.stamped_at > :since)`;
  const bindings = { from, to: range.to, since };
  const tickets = await db.raw<{ rows: { id: string }[] }>(
    `SELECT i.id FROM invoice_tickets k JOIN invoices i ON i.id = k.invoice_id
     WHERE k.transaction_created_at >= :from AND k.transaction_created_at < :to AND ${young} LIMIT 1`,
    bindings,
  );
  if (tickets.rows[0]) return tickets.rows[0].id;
  const globals = await db.raw<{ rows: { id: string }[] }>(
    `WITH RECURSIVE g(id) AS (
       (SELECT global_invoice_id FROM qr_transactions WHERE created_at >= :from AND created_at < :to AND global_invoice_id IS NOT NULL
        ORDER BY global_invoice_id LIMIT 1)
       UNION ALL
       SELECT (SELECT global_invoice_id FROM qr_transactions WHERE created_at >= :from AND created_at < :to AND global_invoice_id > g.id
               ORDER BY global_invoice_id LIMIT 1)
       FROM g WHERE g.id IS NOT NULL)
     SELECT i.id FROM g JOIN invoices i ON i.id = g.id WHERE ${young} LIMIT 1`,
    bindings,
  );
  return globals.rows[0]?.id;
}

/**
 * Drops one partition of sales and its lines' partitions: DETACH and DROP of the taxes', the concepts' and the
 * sales' partitions, in that order, in one transaction with a short lock timeout (a busy table makes the run
 * give up, and the next one try again).
 */
export async function dropSaleMonth(db: Db, range: PartitionRange): Promise<void> {
  const suffix = range.name.slice(SALES.length);
  await db.transaction(async (trx) => {
    await trx.raw(`SET LOCAL lock_timeout = '5s'`);
    for (const table of [...LINES, SALES]) {
      await trx.raw('ALTER TABLE ?? DETACH PARTITION ??', [table, `${table}${suffix}`]);
      await trx.raw('DROP TABLE ??', [`${table}${suffix}`]);
    }
  });
}

/**
 * Deletes the side tables' rows of sales no partition holds any more (before the first partition, and in the
 * holes a dropped month left between held ones), SIDE_BATCH rows a statement: after the drops, so a rule
 * unique across months never lets go of a sale still kept, and every run, so rows a failed run left go with the
 * next. Answers the rows deleted.
 */
export async function forgetDroppedSales(db: Db): Promise<number> {
  const ranges = await partitionRanges(db, SALES);
  const gaps: [from: Date | string, to: Date][] = [];
  if (ranges[0]?.from) gaps.push(['-infinity', ranges[0].from]);
  for (let i = 1; i < ranges.length; i++) {
    const from = ranges[i]!.from;
    if (from && from.getTime() > ranges[i - 1]!.to.getTime()) gaps.push([ranges[i - 1]!.to, from]);
  }
  let deleted = 0;
  for (const [from, to] of gaps) {
    for (const table of SIDE_TABLES) {
      for (;;) {
        const gone = await db.raw<{ rowCount: number }>(
          `DELETE FROM ?? WHERE ctid = ANY(ARRAY(SELECT ctid FROM ?? WHERE transaction_created_at >= ? AND transaction_created_at < ? LIMIT ${SIDE_BATCH}))`,
          [table, table, from, to],
        );
        deleted += gone.rowCount;
        if (gone.rowCount < SIDE_BATCH) break;
      }
    }
  }
  return deleted;
}

/** A partition of sales past its retention that the keeper's runs left in place. */
export interface HeldSaleMonth {
  range: PartitionRange;
  /** When the retention would have dropped it. */
  since: Date;
}

/** Two hourly runs of keep-partitions: a month due longer than this was kept by the job, not yet reached. */
export const HELD_AFTER_MS = 2 * 3_600_000;

/**
 * The partitions of sales kept past QR_RETENTION_MONTHS (needs attention: kind `sale-month`), oldest first:
 * due for longer than two of the job's runs, so still attached because a CFDI holds them. From the catalog
 * alone (the alarm reads this at every scrape); the CFDI that holds one is youngCfdiOf's to name.
 */
export async function heldSaleMonths(db: Db, retentionMonths: number, now: Date): Promise<HeldSaleMonth[]> {
  return (await expiredSaleMonths(db, retentionMonths, now))
    .map((range) => ({ range, since: utcMonth(new Date(range.to.getTime() - 1), retentionMonths) }))
    .filter((m) => now.getTime() - m.since.getTime() > HELD_AFTER_MS);
}
