import type { Db } from './db.js';
import { partitionRanges } from './monthly-partitions.js';

/**
 * Tables range-partitioned by day on `created_at` (UTC), one partition per day (or per span of days) named
 * `<table>_pYYYYMMDD` after its first day:
 * old days leave by DROP of their partition (no mass DELETE, no dead rows, no vacuum debt), new days are
 * created ahead by a job (workers/keep-partitions.ts). There is no default partition: a row for a day
 * without one fails its INSERT loudly, rather than landing where a later partition could not be created.
 */
const DAY_MS = 86_400_000;

/** Midnight UTC of the day `at` falls in, `days` later. */
export function utcDay(at: Date, days = 0): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS + days * DAY_MS);
}

const stamp = (day: Date) => day.toISOString().slice(0, 10).replace(/-/g, '');

export function partitionName(table: string, day: Date): string {
  return `${table}_p${stamp(day)}`;
}

/**
 * Creates partitions for the days in [from, to] that no partition covers yet; answers the ones it created.
 * `spanDays` > 1 makes a partition hold that many days, aligned on multiples of the span since the epoch (7:
 * Thursday to Wednesday), each cut short where an existing partition begins or ends, so a table moves from
 * daily to longer partitions as the job runs, without overlap or a migration; a partition is named after its
 * first day either way.
 */
export async function createDailyPartitions(db: Db, table: string, from: Date, to: Date, spanDays = 1): Promise<string[]> {
  const ranges = await partitionRanges(db, table);
  const covered = (day: Date) => ranges.some((r) => (r.from === null || r.from.getTime() <= day.getTime()) && r.to.getTime() > day.getTime());
  const created: string[] = [];
  for (let day = utcDay(from); day.getTime() <= to.getTime(); day = utcDay(day, 1)) {
    if (covered(day)) continue;
    const spanEnd = utcDay(new Date(Math.floor(day.getTime() / (spanDays * DAY_MS)) * spanDays * DAY_MS), spanDays);
    const nextStart = ranges.map((r) => r.from?.getTime() ?? -Infinity).filter((t) => t > day.getTime());
    const end = new Date(Math.min(spanEnd.getTime(), ...nextStart));
    const name = partitionName(table, day);
    // DDL takes no bind parameters: the bounds are ISO timestamps made here.
    await db.raw(`CREATE TABLE IF NOT EXISTS ?? PARTITION OF ?? FOR VALUES FROM ('${day.toISOString()}') TO ('${end.toISOString()}')`, [name, table]);
    ranges.push({ name, from: day, to: end });
    created.push(name);
  }
  return created;
}

/**
 * Detaches and drops each partition whose days are all before `before` (its upper bound at or before it). One
 * transaction per partition, with a short lock timeout: DETACH takes a brief exclusive lock on the parent, and
 * a busy table makes this run give up (and the next one try again) rather than queue every writer behind it.
 */
export async function dropDailyPartitionsBefore(db: Db, table: string, before: Date): Promise<string[]> {
  const cutoff = utcDay(before).getTime();
  const daily = new Set(await partitionsOf(db, table));
  const expired = (await partitionRanges(db, table))
    .filter((r) => daily.has(r.name) && r.to.getTime() <= cutoff)
    .map((r) => r.name)
    .sort();
  for (const name of expired) {
    await db.transaction(async (trx) => {
      await trx.raw(`SET LOCAL lock_timeout = '5s'`);
      await trx.raw('ALTER TABLE ?? DETACH PARTITION ??', [table, name]);
      await trx.raw('DROP TABLE ??', [name]);
    });
  }
  return expired;
}

/** The table's daily partitions (by name). */
export async function partitionsOf(db: Db, table: string): Promise<string[]> {
  const { rows } = (await db.raw(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
     JOIN pg_namespace n ON n.oid = p.relnamespace WHERE p.relname = ? AND n.nspname = current_schema()`,
    [table],
  )) as { rows: { name: string }[] };
  const daily = new RegExp(`^${table}_p\\d{8}$`);
  return rows.map((r) => r.name).filter((name) => daily.test(name));
}
