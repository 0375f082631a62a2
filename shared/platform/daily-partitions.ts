import type { Db } from './db.js';

/**
 * Tables range-partitioned by day on `created_at` (UTC), one partition per day named `<table>_pYYYYMMDD`:
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

/** Creates the partitions of the days in [from, to] that do not exist yet; answers the ones it created. */
export async function createDailyPartitions(db: Db, table: string, from: Date, to: Date): Promise<string[]> {
  const existing = new Set(await partitionsOf(db, table));
  const created: string[] = [];
  for (let day = utcDay(from); day.getTime() <= to.getTime(); day = utcDay(day, 1)) {
    const name = partitionName(table, day);
    if (existing.has(name)) continue;
    // DDL takes no bind parameters: the bounds are ISO timestamps made here.
    await db.raw(`CREATE TABLE IF NOT EXISTS ?? PARTITION OF ?? FOR VALUES FROM ('${day.toISOString()}') TO ('${utcDay(day, 1).toISOString()}')`, [name, table]);
    created.push(name);
  }
  return created;
}

/**
 * Detaches and drops each partition whose whole day is before `before` (midnight UTC). One transaction per
 * partition, with a short lock timeout: DETACH takes a brief exclusive lock on the parent, and a busy
 * table makes this run give up (and the next one try again) rather than queue every writer behind it.
 */
export async function dropDailyPartitionsBefore(db: Db, table: string, before: Date): Promise<string[]> {
  const cutoff = partitionName(table, utcDay(before));
  const expired = (await partitionsOf(db, table)).filter((name) => name < cutoff).sort();
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
