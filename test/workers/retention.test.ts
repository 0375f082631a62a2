import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { config } from '../../shared/platform/config.js';
import { createDailyPartitions, partitionName, partitionsOf, utcDay } from '../../shared/platform/daily-partitions.js';
import { ensureDatabase, knexConfig } from '../../shared/platform/db.js';
import { partitionRanges } from '../../shared/platform/monthly-partitions.js';
import { keepPartitionsJob, PARTITIONS_AHEAD_DAYS, type RetentionConfig } from '../../workers/keep-partitions.js';

const DAY_MS = 86_400_000;
const PER_DAY = 50;
const RETENTION: RetentionConfig = { webhookDeliveryRetentionDays: 30, webhookEventRetentionDays: 31, idempotencyRetentionDays: 35, qrRetentionMonths: 63 };
const TABLES = ['webhook_deliveries', 'webhook_events', 'idempotency_keys'] as const;

/**
 * The retention of the day-partitioned tables (issue #41): rows over many days, the keeper run at a time when
 * each table's retention cuts somewhere in them, then what stays and what went, day by day. On a database of
 * its own, freshly migrated: the job is run weeks ahead of the clock here, which would drop the suite's days.
 */
describe('keep-partitions: retention of deliveries, events and idempotency records over several periods, without DELETE', function () {
  this.timeout(120_000);
  const url = `${config().databaseUrl}_retention`;
  let db: Knex;
  const today = utcDay(new Date());
  /** Days 1 to LAST after today hold rows; today's partition (the migrated tables': from MINVALUE) too. */
  const LAST = 17;

  before(async () => {
    await ensureDatabase(url);
    db = knexFactory(knexConfig(url));
    await db.raw('DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;');
    await db.migrate.latest();
    // The days up to LAST, as the job run daily until day LAST - 7 makes them.
    for (const table of TABLES) await createDailyPartitions(db, table, utcDay(today, 1), utcDay(today, LAST));
    await db.transaction(async (trx) => {
      // Made-up accounts, merchants and endpoints: foreign keys unchecked, they do not matter to retention.
      await trx.raw('SET LOCAL session_replication_role = replica');
      const days = `generate_series(0, ${LAST}) AS d, generate_series(1, ${PER_DAY}) AS n`;
      const at = `?::timestamptz + d * interval '1 day' + n * interval '1 minute'`;
      await trx.raw(
        `INSERT INTO webhook_events (id, account_id, type, payload, created_at, dispatched_at)
         SELECT 'evt_' || d || '_' || n, 'acc_r', 'qr.expired', '{}', ${at}, ${at} FROM ${days}`,
        [today, today],
      );
      await trx.raw(
        `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, created_at)
         SELECT 'whd_' || d || '_' || n, 'evt_' || d || '_' || n, 'whe_r', 'DELIVERED', ${at} FROM ${days}`,
        [today],
      );
      await trx.raw(
        `INSERT INTO idempotency_keys (merchant_id, scope, key, fingerprint, resource_id, created_at)
         SELECT 'mer_r', 'qr', md5(d || '_' || n)::uuid, 'fp', 'tra_' || d || '_' || n, ${at} FROM ${days}`,
        [today],
      );
    });
  });
  after(() => db.destroy());

  /** Rows per day after today (0: today's partition), by created_at. */
  async function daysHeld(table: string): Promise<number[]> {
    const { rows } = await db.raw<{ rows: { d: number; n: number }[] }>(
      `SELECT floor(extract(epoch FROM created_at - ?::timestamptz) / 86400)::int AS d, count(*)::int AS n FROM ?? GROUP BY 1 ORDER BY 1`,
      [today, table],
    );
    for (const row of rows) expect(row.n, `${table} day ${row.d}`).to.equal(PER_DAY);
    return rows.map((r) => r.d);
  }
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

  it('drops each table the days past its own retention, whole partitions, and keeps the rest row for row', async () => {
    for (const table of TABLES) expect(await daysHeld(table), table).to.deep.equal(range(0, LAST));
    const before = Object.fromEntries(await Promise.all(TABLES.map(async (table) => [table, await partitionsOf(db, table)] as const)));
    const sent: string[] = [];
    const onQuery = (query: { sql: string }) => sent.push(query.sql);
    // 45 days from today: deliveries keep from day 15 (45 - 30), events from 14 (45 - 31), idempotency records
    // from 10 (45 - 35).
    const at = new Date(today.getTime() + 45 * DAY_MS + 3_600_000);
    db.on('query', onQuery);
    let result: { created: number; dropped: number };
    try {
      result = await keepPartitionsJob(db, RETENTION, at);
    } finally {
      db.removeListener('query', onQuery);
    }
    expect(await daysHeld('webhook_deliveries')).to.deep.equal(range(15, LAST));
    expect(await daysHeld('webhook_events')).to.deep.equal(range(14, LAST));
    expect(await daysHeld('idempotency_keys')).to.deep.equal(range(10, LAST));

    // What went, went as partitions: detached and dropped, one statement each, and no DELETE anywhere.
    // (webhook_deliveries also had the empty days before today its own migration made.)
    const dropped = { webhook_deliveries: 15, webhook_events: 14, idempotency_keys: 10 };
    const expired = TABLES.flatMap((table) => before[table]!.filter((name) => name < partitionName(table, utcDay(today, dropped[table]))));
    expect(result.dropped).to.equal(expired.length);
    expect(sent.filter((sql) => /^\s*delete\b/i.test(sql))).to.deep.equal([]);
    const statements = sent.map((sql) => sql.toLowerCase());
    for (const table of TABLES) {
      const partitions = await partitionsOf(db, table);
      for (let d = 0; d < dropped[table]; d++) {
        const name = partitionName(table, utcDay(today, d));
        expect(partitions, table).to.not.include(name);
        expect(
          statements.filter((sql) => sql === `alter table "${table}" detach partition "${name}"` || sql === `drop table "${name}"`),
          name,
        ).to.have.length(2);
      }
      // What stays is whole: the kept days, and the week ahead of the job's day is covered (by a partition a
      // day, or for idempotency records by the week: a claim looks in each of them).
      expect(partitions, table).to.include.members(range(dropped[table], LAST).map((d) => partitionName(table, utcDay(today, d))));
      const ranges = await partitionRanges(db, table);
      for (const d of range(45, 45 + PARTITIONS_AHEAD_DAYS)) {
        const day = utcDay(today, d).getTime();
        expect(
          ranges.filter((r) => (r.from?.getTime() ?? -Infinity) <= day && r.to.getTime() > day),
          `${table} day ${d}`,
        ).to.have.length(1);
      }
      const spans = ranges.filter((r) => r.from && r.from.getTime() >= utcDay(today, 45).getTime()).map((r) => (r.to.getTime() - r.from!.getTime()) / DAY_MS);
      if (table === 'idempotency_keys') expect(Math.max(...spans), 'a week a partition').to.equal(7);
      else expect(spans.every((days) => days === 1)).to.equal(true);
      const { rows } = await db.raw<{ rows: { n: number }[] }>(`SELECT count(*)::int AS n FROM pg_class WHERE relname LIKE ? AND relname < ?`, [
        `${table}_p%`,
        partitionName(table, utcDay(today, dropped[table])),
      ]);
      expect(rows[0]?.n, `${table}: dropped tables are gone, not only detached`).to.equal(0);
    }
    // A second run finds nothing to drop.
    expect((await keepPartitionsJob(db, RETENTION, at)).dropped).to.equal(0);
  });
});
