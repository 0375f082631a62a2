import type { Db, Trx } from './db.js';

/**
 * Tables range-partitioned by calendar month (UTC) on their time column, one partition per month named
 * `<table>_pYYYYMM` (issue #41, docs/data-growth.md): the QR sales and their lines. The table a migration
 * attached whole (`<table>_legacy`, from MINVALUE to the migration's instant) is a partition like the others:
 * its bounds, read from the catalog, say when it leaves. No default partition (as the daily tables).
 */

/** The first instant of the UTC month `at` falls in, `months` later. */
export function utcMonth(at: Date, months = 0): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + months, 1));
}

export function monthlyPartitionName(table: string, month: Date): string {
  return `${table}_p${month.toISOString().slice(0, 7).replace('-', '')}`;
}

/** A partition and its range; `from` null for MINVALUE. */
export interface PartitionRange {
  name: string;
  from: Date | null;
  to: Date;
}

/** Every range partition of the table, oldest first, with its bounds as the catalog holds them. */
export async function partitionRanges(db: Db | Trx, table: string): Promise<PartitionRange[]> {
  const { rows } = (await db.raw(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
     JOIN pg_namespace n ON n.oid = p.relnamespace WHERE p.relname = ? AND n.nspname = current_schema()`,
    [table],
  )) as { rows: { name: string; bound: string }[] };
  const ranges = rows.map(({ name, bound }) => {
    const m = /^FOR VALUES FROM \((MINVALUE|'[^']+')\) TO \('([^']+)'\)$/.exec(bound);
    if (!m) throw new Error(`${name}: not a range partition on one column (${bound})`);
    return { name, from: m[1] === 'MINVALUE' ? null : new Date(m[1]!.slice(1, -1)), to: new Date(m[2]!) };
  });
  return ranges.sort((a, b) => a.to.getTime() - b.to.getTime());
}

/**
 * Creates the months of [from, to] that no partition covers yet; answers the ones it created. `clause`: the
 * constraints each new partition carries (its own CHECKs), given its name.
 */
export async function createMonthlyPartitions(db: Db, table: string, from: Date, to: Date, clause?: (name: string) => string): Promise<string[]> {
  const ranges = await partitionRanges(db, table);
  // Any overlap counts: the migration made the month it ran in from its own instant on.
  const covered = (month: Date) => ranges.some((r) => (r.from === null || r.from.getTime() < utcMonth(month, 1).getTime()) && r.to.getTime() > month.getTime());
  const created: string[] = [];
  for (let month = utcMonth(from); month.getTime() <= to.getTime(); month = utcMonth(month, 1)) {
    const name = monthlyPartitionName(table, month);
    if (covered(month)) continue;
    // DDL takes no bind parameters: the bounds are ISO timestamps made here.
    await db.raw(
      `CREATE TABLE IF NOT EXISTS ?? PARTITION OF ?? ${clause ? `(${clause(name)})` : ''} FOR VALUES FROM ('${month.toISOString()}') TO ('${utcMonth(month, 1).toISOString()}')`,
      [name, table],
    );
    created.push(name);
  }
  return created;
}
