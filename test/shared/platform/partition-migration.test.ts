import { expect } from 'chai';
import type { Knex } from 'knex';
import { config } from '../../../shared/platform/config.js';
import { partitionName, partitionsOf, utcDay } from '../../../shared/platform/daily-partitions.js';
import { keepPartitionsJob } from '../../../workers/keep-partitions.js';
import { databaseBeforeMigration } from '../../helpers/database-before-migration.js';

const MIGRATION = '20261128200000_partition_idempotency_and_events.ts';
const DAY_MS = 86_400_000;
const KEYS = 4_000;
const EVENTS = 3_000;

/**
 * The migration on a database that already holds data (issue #41): the schema as it was before it, rows
 * written over the last 40 days (as a deployment that kept them would have), then the migration alone. On a
 * database of its own, so the suite's schema stays the latest.
 */
describe('migration 20261128200000: idempotency_keys and webhook_events partitioned on a populated database', function () {
  this.timeout(240_000);
  const url = `${config().databaseUrl}_partition_migration`;
  let db: Knex;

  before(async () => {
    db = await databaseBeforeMigration(url, MIGRATION);
    // The old schema's rows, written as PostgreSQL writes a bench's (generate_series), foreign keys unchecked:
    // the merchants and accounts they name do not matter to the move.
    await db.transaction(async (trx) => {
      await trx.raw('SET LOCAL session_replication_role = replica');
      await trx.raw(
        `INSERT INTO idempotency_keys (merchant_id, scope, key, fingerprint, resource_id, created_at)
         SELECT 'mer_' || (n % 7), 'qr', md5('k' || n)::uuid, md5('f' || n), 'tra_' || n, now() - (n % 40) * interval '1 day' - (n % 1000) * interval '1 second'
         FROM generate_series(1, ?::int) AS n`,
        [KEYS],
      );
      await trx.raw(
        `INSERT INTO webhook_events (id, account_id, type, payload, created_at, dispatched_at)
         SELECT 'evt_m' || n, 'acc_' || (n % 3), 'qr.expired', jsonb_build_object('n', n), now() - (n % 40) * interval '1 day',
           CASE WHEN n % 100 = 0 THEN NULL ELSE now() - (n % 40) * interval '1 day' END
         FROM generate_series(1, ?::int) AS n`,
        [EVENTS],
      );
      // Deliveries of the recent events (webhook_deliveries keeps 30 days and a week ahead).
      await trx.raw(
        `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, created_at)
         SELECT 'whd_m' || n, 'evt_m' || n, 'whe_m', 'DELIVERED', now() - (n % 40) * interval '1 day'
         FROM generate_series(1, ?::int) AS n WHERE n % 40 < 29`,
        [EVENTS],
      );
    });
  });
  after(() => db.destroy());

  const counts = async () =>
    (
      await db.raw<{ rows: { keys: number; events: number; undispatched: number; fingerprints: string }[] }>(
        `SELECT (SELECT count(*) FROM idempotency_keys)::int AS keys, (SELECT count(*) FROM webhook_events)::int AS events,
           (SELECT count(*) FROM webhook_events WHERE dispatched_at IS NULL)::int AS undispatched,
           (SELECT md5(string_agg(merchant_id || key || fingerprint || resource_id || created_at, ',' ORDER BY key)) FROM idempotency_keys) AS fingerprints`,
      )
    ).rows[0]!;

  it('keeps every row, makes each table partitioned by day with the old rows in one partition, and its keys still claimed', async () => {
    const before = await counts();
    expect(before).to.include({ keys: KEYS, events: EVENTS, undispatched: EVENTS / 100 });
    await db.migrate.up();

    expect(await counts()).to.deep.equal(before);
    const today = utcDay(new Date());
    for (const table of ['idempotency_keys', 'webhook_events']) {
      const { rows } = await db.raw<{ rows: { relkind: string }[] }>('SELECT relkind FROM pg_class WHERE relname = ?', [table]);
      expect(rows[0]?.relkind, table).to.equal('p');
      const partitions = await partitionsOf(db, table);
      // The old table is today's partition (from MINVALUE), then a week of days.
      expect(partitions, table).to.include.members([partitionName(table, today), partitionName(table, utcDay(today, 1)), partitionName(table, utcDay(today, 7))]);
      const held = await db.raw<{ rows: { n: number }[] }>(`SELECT count(*)::int AS n FROM ${partitionName(table, today)}`);
      expect(held.rows[0]?.n, table).to.equal(table === 'idempotency_keys' ? KEYS : EVENTS);
    }
    // A key written 39 days ago is still taken; a new one is claimed once.
    const old = (await db('idempotency_keys').orderBy('created_at').first('merchant_id', 'scope', 'key')) as { merchant_id: string; scope: string; key: string };
    // The old rows' merchants are made up: foreign keys unchecked here too.
    const claim = (key: string) =>
      db.transaction(async (trx) => {
        await trx.raw('SET LOCAL session_replication_role = replica');
        return trx.raw<{ rows: { claimed: string | null }[] }>('SELECT claim_idempotency_key(?, ?, ?, ?, ?) AS claimed', [old.merchant_id, 'qr', key, 'fp', 'tra_new']);
      });
    expect((await claim(old.key)).rows[0]?.claimed).to.equal(null);
    const fresh = '6f1c2d3e-4a5b-4c6d-8e7f-000000000001';
    expect((await claim(fresh)).rows[0]?.claimed).to.equal('tra_new');
    expect((await claim(fresh)).rows[0]?.claimed).to.equal(null);
    // The dispatcher's read finds the undispatched ones through the carried-over partial index.
    expect((await db('webhook_events').whereNull('dispatched_at').count<{ n: string }[]>({ n: '*' }))[0]?.n).to.equal(String(EVENTS / 100));
  });

  it('lets the old rows leave with their partition, all at once, when its day passes the retention', async () => {
    const retention = { webhookDeliveryRetentionDays: 30, webhookEventRetentionDays: 31, idempotencyRetentionDays: 35, qrRetentionMonths: 63 };
    // The keeper keeps the sales' months too, partitioned by a later migration.
    await db.migrate.latest();
    // Still inside the retention: nothing of the old table goes.
    await keepPartitionsJob(db, retention, new Date(Date.now() + 30 * DAY_MS));
    expect((await counts()).keys).to.equal(KEYS + 1);
    // Its last day 36 days back: the old keys go, the events already went (31 days).
    await keepPartitionsJob(db, retention, new Date(Date.now() + 36 * DAY_MS));
    const after = await counts();
    expect(after).to.include({ keys: 0, events: 0 });
    expect(await partitionsOf(db, 'idempotency_keys')).to.not.include(partitionName('idempotency_keys', utcDay(new Date())));
  });
});
