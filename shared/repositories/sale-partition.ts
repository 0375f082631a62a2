import { onOneConnection, type Db, type PreparedStatement, type RunPrepared } from '../platform/db.js';
import { ID_PREFIX, timedKeyInstant } from '../platform/ids.js';
import { monthlyPartitionName, utcMonth } from '../platform/monthly-partitions.js';

/**
 * The partitions of the sales' tables (`qr_transactions`, `qr_concepts`, `qr_concept_taxes`, monthly since issue
 * #41) a hot read names directly (issue #40). A prepared statement on the parent runs on its generic plan, and
 * each run locks every month's partition of the three tables, with their indexes, before it prunes them: the
 * GET's statement cost PostgreSQL 0.53 ms of CPU at 17 months and 0.85–1.0 ms at 63 (the five years a sale is
 * kept), and 0.15 ms on the one month's partitions (docs/data-growth.md, "Hot reads on one partition").
 *
 * A partition is named by its suffix: `pYYYYMM` for a month (monthlyPartitionName), `legacy` for the table from
 * before the months.
 */
export type SalePartition = `p${string}` | 'legacy';

/**
 * The oldest instant a key is taken to carry: the old table's keys are random, and read as instants (48 bits of
 * milliseconds) all but about one in a thousand fall outside [then, now], so they cost no read of a month.
 */
const FIRST_TIMED_KEY = Date.UTC(2020, 0, 1);
/** The instant of a key just made on another machine may be ahead of this one's clock. */
const CLOCK_SLACK_MS = 86_400_000;

/**
 * The partitions a sale's id or token can be in, in the order to read them: the month of the instant the key
 * carries (a sale's created_at), then the legacy partition (a sale of the old table, or one moved there). A key
 * carrying no plausible instant (the old table's) names the legacy partition alone.
 */
export function salePartitionsOf(column: 'id' | 'token', key: string, now: number = Date.now()): SalePartition[] {
  if (column === 'id' && !key.startsWith(ID_PREFIX.transaction)) return ['legacy'];
  const at = timedKeyInstant(column === 'id' ? key.slice(ID_PREFIX.transaction.length) : key);
  if (!at || at.getTime() < FIRST_TIMED_KEY || at.getTime() > now + CLOCK_SLACK_MS) return ['legacy'];
  return [monthlyPartitionName('', utcMonth(at)).slice(1) as SalePartition, 'legacy'];
}

/** `table`'s partition `partition`, as SQL names it. */
export function partitionOf(table: 'qr_transactions' | 'qr_concepts' | 'qr_concept_taxes', partition: SalePartition): string {
  return `${table}_${partition}`;
}

/**
 * On a month's partition, the key's row named by its whole unique key: `created_at` is the instant the key
 * carries (the partition's CHECK), so `(id, created_at)` or `(token, created_at)` is one row for the planner
 * whatever the statistics say. With `id = $1` alone, a partition not analyzed yet (a new month, the bench's
 * fresh database) got a generic plan through the merchant's index, reading every sale of the merchant.
 */
export function onKeyInstant(column: 'id' | 'token', partition: SalePartition): string {
  return partition === 'legacy' ? '' : ` AND t.created_at = ${keyInstant(column, '$1')}`;
}

/** The instant a key carries, in SQL: an id's after its `tra_`, a token's from its start. */
export const keyInstant = (keyColumn: 'id' | 'token', param: string) => (keyColumn === 'id' ? `qr_key_instant(substr(${param}, 5))` : `qr_key_instant(${param})`);

/** A statement per partition, made once per partition and process (named `<name>_<partition>`). */
export function perPartition(name: string, text: (partition: SalePartition) => string): (partition: SalePartition) => PreparedStatement {
  const made = new Map<SalePartition, PreparedStatement>();
  return (partition) => {
    let statement = made.get(partition);
    if (!statement) made.set(partition, (statement = { name: `${name}_${partition}`, text: text(partition) }));
    return statement;
  };
}

/** The month partition a sale's id names, if any (a sale of the old table's keys has none). */
export function monthPartitionOf(id: string, now: number = Date.now()): SalePartition | undefined {
  const [partition] = salePartitionsOf('id', id, now);
  return partition === 'legacy' ? undefined : partition;
}

const UNDEFINED_TABLE = '42P01';

/** Runs a statement naming one partition: a partition that does not exist (a month dropped after its five years, or never made: a forged key) holds no rows. */
export async function runInPartition<Row>(db: Db, statement: PreparedStatement, values: unknown[]): Promise<Row[]> {
  return onOneConnection(db, (run) => inPartition<Row>(run, statement, values));
}

async function inPartition<Row>(run: RunPrepared, statement: PreparedStatement, values: unknown[]): Promise<Row[]> {
  try {
    return await run<Row>(statement, values);
  } catch (err) {
    if ((err as { code?: string }).code === UNDEFINED_TABLE) return [];
    throw err;
  }
}

/** The first row `statement` finds in the partitions, read in order on one connection (runInPartition). */
export async function firstInPartitions<Row>(
  db: Db,
  partitions: readonly SalePartition[],
  statement: (partition: SalePartition) => PreparedStatement,
  values: unknown[],
): Promise<Row | undefined> {
  return onOneConnection(db, async (run) => {
    for (const partition of partitions) {
      const [row] = await inPartition<Row>(run, statement(partition), values);
      if (row) return row;
    }
    return undefined;
  });
}
