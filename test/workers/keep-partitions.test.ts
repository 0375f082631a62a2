import { expect } from 'chai';
import { db } from '../../shared/platform/db.js';
import { partitionName, partitionsOf, utcDay } from '../../shared/platform/daily-partitions.js';
import { keepPartitionsJob, partitionedTables, PARTITIONS_AHEAD_DAYS } from '../../workers/keep-partitions.js';
import { queueEvents } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { runJob } from '../helpers/run-job.js';

const DAY_MS = 86_400_000;
const TABLE = 'webhook_deliveries';
const RETENTION = { webhookDeliveryRetentionDays: 30, webhookEventRetentionDays: 31, idempotencyRetentionDays: 35, qrRetentionMonths: 63 };

/** An event of the account and one delivery of it to a (fake) endpoint, written `daysAgo` days ago. */
async function deliveryOf(accountId: string, daysAgo: number): Promise<string> {
  const suffix = `${process.pid}_${daysAgo}_${Math.random().toString(36).slice(2)}`;
  const at = new Date(Date.now() - daysAgo * DAY_MS);
  await db()('webhook_events').insert({ id: `evt_p${suffix}`, account_id: accountId, type: 'qr.expired', payload: {}, created_at: at, dispatched_at: at });
  await db()('webhook_endpoints').insert({ id: `whe_p${suffix}`, account_id: accountId, url: 'https://erp.example.com/hooks', secret_encrypted: Buffer.alloc(32) });
  await db()(TABLE).insert({ id: `whd_p${suffix}`, event_id: `evt_p${suffix}`, endpoint_id: `whe_p${suffix}`, status: 'DELIVERED', created_at: at });
  return `whd_p${suffix}`;
}

describe('time-partitioned webhook deliveries and the keep-partitions job (issue #30)', () => {
  it('migrates webhook_deliveries to one partition per day, today and a week ahead ready', async () => {
    const { rows } = (await db().raw(`SELECT c.relkind FROM pg_class c WHERE c.relname = ?`, [TABLE])) as { rows: { relkind: string }[] };
    expect(rows[0]?.relkind).to.equal('p');
    const partitions = await partitionsOf(db(), TABLE);
    for (let d = 0; d <= PARTITIONS_AHEAD_DAYS; d++) expect(partitions).to.include(partitionName(TABLE, utcDay(new Date(), d)));
  });

  it('creates the days ahead and drops the days past the retention, their deliveries with them; a second run changes nothing', async () => {
    const account = await harness().bootstrap();
    const old = await deliveryOf(account.accountId, 25);
    const recent = await deliveryOf(account.accountId, 0);
    // Ten days from now with a 30-day retention: everything before 20 days ago goes, up to 17 days ahead is made.
    const later = new Date(Date.now() + 10 * DAY_MS);
    const result = await keepPartitionsJob(db(), RETENTION, later);
    // That day and the week after it: a partition a day for deliveries and events, for idempotency records one
    // per week the eight days touch (two, the days being consecutive: one cut short where the span begins).
    const perTable = partitionedTables(RETENTION).map(({ spanDays }) => (spanDays === 1 ? PARTITIONS_AHEAD_DAYS + 1 : 2));
    expect(result.created).to.equal(perTable.reduce((a, b) => a + b, 0));
    expect(result.dropped).to.be.at.least(1);

    const partitions = await partitionsOf(db(), TABLE);
    expect(partitions).to.include(partitionName(TABLE, utcDay(later, PARTITIONS_AHEAD_DAYS)));
    expect(partitions).to.not.include(partitionName(TABLE, utcDay(new Date(Date.now() - 25 * DAY_MS))));
    expect(partitions.every((name) => name >= partitionName(TABLE, utcDay(later, -30)))).to.equal(true);
    expect(await db()(TABLE).where({ id: old }).first()).to.equal(undefined);
    expect(await db()(TABLE).where({ id: recent }).first()).to.include({ status: 'DELIVERED' });
    // The dropped tables are gone, not only detached.
    const { rows } = (await db().raw('SELECT count(*)::int AS n FROM pg_class WHERE relname = ?', [partitionName(TABLE, utcDay(new Date(Date.now() - 25 * DAY_MS)))])) as {
      rows: { n: number }[];
    };
    expect(rows[0]?.n).to.equal(0);

    expect(await keepPartitionsJob(db(), RETENTION, later)).to.deep.equal({ created: 0, dropped: 0, saleMonths: { created: 0, dropped: 0, held: 0 } });
  });

  it('runs as the workers run it: a keep-partitions job on the webhooks queue answers what it did', async () => {
    const events = await queueEvents('webhooks');
    try {
      expect(await runJob('keep-partitions', {}, events)).to.have.keys(['created', 'dropped', 'saleMonths']);
    } finally {
      await events.close();
    }
  });
});
