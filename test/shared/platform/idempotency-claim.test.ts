import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { partitionName, utcDay } from '../../../shared/platform/daily-partitions.js';
import { CLAIM_KEY_SQL, findRecord } from '../../../shared/platform/idempotency/idempotency-store.js';
import { harness } from '../../helpers/harness.js';

const CLAIM = CLAIM_KEY_SQL.replace(/\$\d/g, '?');

/** The claim as the writers send it: the resource id when this call claimed the key, undefined when it was taken. */
async function claim(db: Knex | Knex.Transaction, merchantId: string, key: string, resourceId: string): Promise<string | undefined> {
  const { rows } = await db.raw<{ rows: { resource_id: string }[] }>(CLAIM, [merchantId, 'test', key, `fp-${resourceId}`, resourceId]);
  return rows[0]?.resource_id;
}

/** Resolves once `pid` waits for an advisory lock (what a second claimer of a held key does). */
async function waitingOnAdvisoryLock(db: Knex, pid: number): Promise<void> {
  for (;;) {
    const { rows } = await db.raw<{ rows: { waiting: boolean }[] }>(`SELECT EXISTS (SELECT 1 FROM pg_locks WHERE pid = ? AND locktype = 'advisory' AND NOT granted) AS waiting`, [
      pid,
    ]);
    if (rows[0]?.waiting) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function backendPid(trx: Knex.Transaction): Promise<number> {
  return (await trx.raw<{ rows: { pid: number }[] }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
}

/**
 * idempotency_keys is partitioned by day (migration 20261128200000): its primary key holds created_at, so two
 * rows of one key on two days (or two instants) would both fit. One record per key is the claim's: an
 * advisory lock on the key, then a look in every partition with a fresh snapshot, then the insert.
 */
describe('claiming an idempotency key on the day-partitioned table (issue #41)', () => {
  it('gives one key to exactly one of 10 concurrent claimers; the others find its record', async () => {
    const { merchantId } = await harness().bootstrap();
    const db = harness().deps.db;
    const key = randomUUID();
    // Ten transactions open on their own connections before any claims: the claims then overlap, and each
    // commits right after its own (a claimer that waits for the key's holder holds nobody else up).
    const claimers = await Promise.all(Array.from({ length: 10 }, () => db.transaction()));
    await Promise.all(claimers.map((trx) => trx.raw('SELECT 1')));
    const answers = await Promise.all(
      claimers.map(async (trx, i) => {
        const answer = await claim(trx, merchantId, key, `res_${i}`);
        await trx.commit();
        return answer;
      }),
    );
    const winners = answers.filter((a) => a !== undefined);
    expect(winners).to.have.length(1);
    expect(await db('idempotency_keys').where({ merchant_id: merchantId, key })).to.have.length(1);
    expect(await findRecord(db, { merchantId, scope: 'test', key })).to.deep.equal({ fingerprint: `fp-${winners[0]!}`, resourceId: winners[0] });
  });

  it('finds a key claimed on another day, in another partition', async () => {
    const { merchantId } = await harness().bootstrap();
    const db = harness().deps.db;
    const key = randomUUID();
    expect(await claim(db, merchantId, key, 'res_first')).to.equal('res_first');
    // The first claim as if made tomorrow (its row moves to that day's partition): today's claim still finds it.
    const tomorrow = new Date(utcDay(new Date(), 1).getTime() + 60_000);
    await db('idempotency_keys').where({ merchant_id: merchantId, key }).update({ created_at: tomorrow });
    const { rows } = await db.raw<{ rows: { partition: string }[] }>('SELECT tableoid::regclass::text AS partition FROM idempotency_keys WHERE key = ?', [key]);
    expect(rows.map((r) => r.partition)).to.deep.equal([partitionName('idempotency_keys', utcDay(tomorrow))]);
    expect(await claim(db, merchantId, key, 'res_second')).to.equal(undefined);
    expect(await db('idempotency_keys').where({ merchant_id: merchantId, key })).to.have.length(1);
  });

  it('makes a claimer wait for a concurrent holder of the key on the other side of midnight, then see its record', async () => {
    const { merchantId } = await harness().bootstrap();
    const db = harness().deps.db;
    const key = randomUUID();
    const first = await db.transaction();
    const second = await db.transaction();
    try {
      // The first claimer, not committed yet, with its record on the other side of midnight: no unique index
      // sees the two (different days, different partitions), only the claim's lock and its look.
      expect(await claim(first, merchantId, key, 'res_first')).to.equal('res_first');
      await first('idempotency_keys')
        .where({ merchant_id: merchantId, key })
        .update({ created_at: utcDay(new Date(), 1) });
      const secondPid = await backendPid(second);
      const secondClaim = claim(second, merchantId, key, 'res_second');
      // The second claim must wait for the first's commit: answering before is the failure.
      await Promise.race([
        waitingOnAdvisoryLock(db, secondPid),
        secondClaim.then((answer) => {
          throw new Error(`the second claim answered ${String(answer)} while the first held the key`);
        }),
      ]);
      await first.commit();
      expect(await secondClaim).to.equal(undefined);
      await second.commit();
    } finally {
      if (!first.isCompleted()) await first.rollback();
      if (!second.isCompleted()) await second.rollback();
    }
    expect((await db('idempotency_keys').where({ merchant_id: merchantId, key }).select('resource_id')).map((r: { resource_id: string }) => r.resource_id)).to.deep.equal([
      'res_first',
    ]);
  });
});
