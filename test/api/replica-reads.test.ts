import { existsSync } from 'node:fs';
import { setTimeout as wait } from 'node:timers/promises';
import { expect } from 'chai';
import knexFactory from 'knex';
import pg from 'pg';
import { bootstrapAccount, type BootstrapResult } from '../../cli/bootstrap.js';
import { POSTGRES_BIN, startOwnPostgres, startStandby, type OwnPostgres } from '../../chaos/own-postgres.js';
import { hashAdminPassword } from '../../shared/platform/crypto/admin-password.js';
import { knexConfig, migrateLatest, type Db } from '../../shared/platform/db.js';
import { replicaMisses } from '../../shared/platform/metrics/registry.js';
import { harness } from '../helpers/harness.js';
import { BUYER } from '../helpers/buyer.js';
import { qrBody, qrHeaders } from '../helpers/qr-body.js';
import { configWith, startStackOn, type StackOnRedis } from '../helpers/stack-on-redis.js';

/**
 * DATABASE_READ_URL (issue #41) against a real streaming replica: a primary cluster of the test's own and a hot
 * standby made from it by pg_basebackup -R, both on loopback from Debian's binaries, with an API and its workers
 * on them. Replay paused on the standby is the lag. Which handle a request used is counted where knex and
 * runPrepared take a connection from each handle's pool.
 */
const DATABASE = 'af_replica_reads';
const OPERATOR_PASSWORD = 'replica reads operator';

interface Counted {
  count: number;
}

/** Counts the connections taken from the handle's pool: every statement, knex-built or prepared, takes one. */
function countAcquisitions(db: Db): Counted {
  const counted = { count: 0 };
  const client = db.client as { acquireConnection(): Promise<unknown> };
  const acquire = client.acquireConnection.bind(client);
  client.acquireConnection = () => {
    counted.count++;
    return acquire();
  };
  return counted;
}

(existsSync(`${POSTGRES_BIN}/pg_basebackup`) ? describe : describe.skip)('Reads on a streaming replica (DATABASE_READ_URL, issue #41)', function () {
  // Two clusters (initdb, base backup), the migrations and a stack of workers: 20-90 s on a loaded machine.
  this.timeout(240_000);
  let primary: OwnPostgres | undefined;
  let standby: OwnPostgres | undefined;
  /** The API's handles (the workers have their own pool to the primary, so what is counted is the API's alone). */
  let primaryDb: Db | undefined;
  let replicaDb: Db | undefined;
  let workersDb: Db | undefined;
  let stack: StackOnRedis | undefined;
  let account: BootstrapResult;
  const taken = { primary: { count: 0 }, replica: { count: 0 } };

  /** How many connections each handle gave while `act` ran. */
  async function handlesUsedBy<T>(act: () => Promise<T>): Promise<{ result: T; primary: number; replica: number }> {
    const before = { primary: taken.primary.count, replica: taken.replica.count };
    const result = await act();
    return { result, primary: taken.primary.count - before.primary, replica: taken.replica.count - before.replica };
  }

  /** Until the standby has replayed all the primary has written so far (replay is another process: polled). */
  async function caughtUp(): Promise<void> {
    const { rows } = (await primaryDb!.raw('SELECT pg_current_wal_lsn()::text AS lsn')) as { rows: { lsn: string }[] };
    const deadline = Date.now() + 30_000;
    for (;;) {
      const replayed = (await replicaDb!.raw('SELECT pg_last_wal_replay_lsn() >= ?::pg_lsn AS done', [rows[0]!.lsn])) as { rows: { done: boolean }[] };
      if (replayed.rows[0]!.done) return;
      if (Date.now() > deadline) throw new Error('the standby did not catch up in 30 s');
      await wait(20);
    }
  }

  const pauseReplay = () => replicaDb!.raw('SELECT pg_wal_replay_pause()');
  const resumeReplay = () => replicaDb!.raw('SELECT pg_wal_replay_resume()');

  async function request(method: string, path: string, options: { headers?: Record<string, string>; body?: unknown } = {}) {
    const res = await fetch(`${stack!.baseUrl}${path}`, {
      method,
      headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const type = res.headers.get('content-type') ?? '';
    return { status: res.status, body: (type.includes('json') ? await res.json() : await res.text()) as any };
  }

  const apiKey = () => ({ 'X-API-Key': account.apiKey });
  const replicaMissCount = async () => (await replicaMisses.get()).values[0]?.value ?? 0;
  const newSale = () => request('POST', '/v1/qrs', { headers: qrHeaders(account), body: qrBody(account.storeUid) });
  const listedIds = async () => ((await request('GET', '/v1/qrs?size=100', { headers: apiKey() })).body.content as { qr_id: string }[]).map((q) => q.qr_id);
  const linkOf = (created: { qr_content: string }) => Object.fromEntries(['v', 't', 'm'].map((p) => [p, new URL(created.qr_content).searchParams.get(p)!]));

  before(async () => {
    primary = await startOwnPostgres();
    const admin = new pg.Client({ connectionString: primary.url('postgres') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${DATABASE}`);
    await admin.end();
    primaryDb = knexFactory(knexConfig(primary.url(DATABASE)));
    await migrateLatest(primaryDb);
    const cfg = configWith({ QUEUE_PREFIX: `${harness().deps.config.queuePrefix}replica`, DATABASE_URL: primary.url(DATABASE) });
    account = await bootstrapAccount(primaryDb, cfg, 'replica-reads');
    // SAT's one test RFC sells the same sale in every test: a Serie of its own keeps this run's CFDIs apart at the fake PAC.
    await primaryDb('merchant_csds').where({ merchant_id: account.merchantId }).update({ serial_number_prefix: 'RPL' });

    standby = await startStandby(primary);
    replicaDb = knexFactory(knexConfig(standby.url(DATABASE)));
    taken.primary = countAcquisitions(primaryDb);
    taken.replica = countAcquisitions(replicaDb);
    await caughtUp();
    workersDb = knexFactory(knexConfig(primary.url(DATABASE)));
    const operator = { adminUser: 'ops', adminPasswordHash: await hashAdminPassword(OPERATOR_PASSWORD) };
    stack = await startStackOn({ ...cfg, ...operator, databaseReadUrl: standby.url(DATABASE) }, { db: primaryDb, readDb: replicaDb }, workersDb);
  });

  afterEach(async () => {
    // A failed test must not leave the next one (or after()) with replay paused.
    await resumeReplay().catch(() => undefined);
  });

  after(async () => {
    await stack?.close().catch(() => undefined);
    for (const handle of [primaryDb, replicaDb, workersDb]) await handle?.destroy().catch(() => undefined);
    await standby?.remove();
    await primary?.remove();
  });

  it('the standby is a hot standby: it answers reads, refuses writes, and has what the primary had', async () => {
    const { rows } = (await replicaDb!.raw('SELECT pg_is_in_recovery() AS recovering')) as { rows: { recovering: boolean }[] };
    expect(rows[0]!.recovering).to.equal(true);
    const refused = await replicaDb!.raw("UPDATE merchants SET name = 'x' WHERE false").then(
      () => undefined,
      (err: { code?: string }) => err.code,
    );
    expect(refused).to.equal('25006'); // read_only_sql_transaction
    expect(await replicaDb!('merchants').where({ id: account.merchantId }).first('id')).to.deep.equal({ id: account.merchantId });
  });

  it('replay paused: a GET right after its POST answers 200 (the primary, as the replica lacks it); the books list, read on the replica, does not show it yet', async () => {
    const earlier = await newSale();
    expect(earlier.status, JSON.stringify(earlier.body)).to.equal(201);
    await caughtUp();
    await pauseReplay();

    const missesBefore = await replicaMissCount();
    const post = await handlesUsedBy(newSale);
    expect(post.result.status, JSON.stringify(post.result.body)).to.equal(201);
    expect(post.replica, 'POST /v1/qrs took a connection of the read handle').to.equal(0);
    const created = post.result.body as { qr_id: string; qr_content: string };

    const get = await handlesUsedBy(() => request('GET', `/v1/qrs/${created.qr_id}`, { headers: apiKey() }));
    expect(get.result.status, JSON.stringify(get.result.body)).to.equal(200);
    expect(get.result.body).to.deep.equal(created);
    expect(get.replica, 'the replica was asked first').to.equal(1);
    expect(await replicaMissCount()).to.equal(missesBefore + 1);
    expect(get.primary, 'then the primary').to.be.greaterThan(0);

    const list = await handlesUsedBy(listedIds);
    expect(list.result).to.include(earlier.body.qr_id).and.not.include(created.qr_id);
    expect(list.primary, 'the list read the primary').to.equal(0);
    expect(await primaryDb!('qr_transactions').where({ id: created.qr_id }).first('id')).to.deep.equal({ id: created.qr_id });

    await resumeReplay();
    await caughtUp();
    expect(await listedIds()).to.include(created.qr_id);
    // Replayed: the GET is the replica's alone.
    const again = await handlesUsedBy(() => request('GET', `/v1/qrs/${created.qr_id}`, { headers: apiKey() }));
    expect(again.result.status).to.equal(200);
    expect({ primary: again.primary, replica: again.replica }).to.deep.equal({ primary: 0, replica: 1 });
  });

  it("replay paused: the buyer's resolve and preview right after the sale answer 200; confirm writes on the primary and never takes the read handle", async () => {
    await pauseReplay();
    const created = (await newSale()).body as { qr_id: string; qr_content: string };
    const link = linkOf(created);

    const resolve = await handlesUsedBy(() => request('GET', `/v1/public/qrs/resolve?${new URLSearchParams(link).toString()}`));
    expect(resolve.result.status, JSON.stringify(resolve.result.body)).to.equal(200);
    // Scanned on the primary; the paused replica still has nothing of it.
    expect(resolve.result.body.status).to.equal('SCANNED');
    expect(resolve.replica).to.be.greaterThan(0);
    expect(await replicaDb!('qr_transactions').where({ id: created.qr_id }).first('id')).to.equal(undefined);

    const preview = await request('POST', '/v1/public/qrs/preview', { body: { ...link, customer: BUYER } });
    expect(preview.status, JSON.stringify(preview.body)).to.equal(200);

    const confirm = await handlesUsedBy(() => request('POST', '/v1/public/qrs/confirm', { body: { ...link, customer: BUYER, review_digest: preview.body.review_digest } }));
    expect(confirm.result.status, JSON.stringify(confirm.result.body)).to.equal(202);
    expect(confirm.replica, 'confirm took a connection of the read handle').to.equal(0);
    // Where the page polls after confirming: the primary's state, not the replica's.
    const status = await request('GET', `/v1/public/qrs/status?${new URLSearchParams(link).toString()}`);
    expect(status.body.confirmation, JSON.stringify(status.body)).to.not.equal(null);
  });

  it("the books' summary and export, and the status page, read on the replica alone", async () => {
    await caughtUp();
    const today = new Date().toISOString().slice(0, 10);
    const summary = await handlesUsedBy(() => request('GET', `/v1/qrs/invoices/summary?from=${today}&to=${today}`, { headers: apiKey() }));
    expect(summary.result.status, JSON.stringify(summary.result.body)).to.equal(200);
    expect({ primary: summary.primary, replica: summary.replica > 0 }).to.deep.equal({ primary: 0, replica: true });
    const exported = await handlesUsedBy(() => request('GET', `/v1/qrs/invoices/export?format=csv&created_from=${today}&created_to=${today}`, { headers: apiKey() }));
    expect(exported.result.status).to.equal(200);
    expect({ primary: exported.primary, replica: exported.replica > 0 }).to.deep.equal({ primary: 0, replica: true });
    const login = { Authorization: `Basic ${Buffer.from(`ops:${OPERATOR_PASSWORD}`).toString('base64')}` };
    const page = await handlesUsedBy(() => request('GET', `/admin/status?merchant=${account.merchantId}`, { headers: login }));
    expect(page.result.status).to.equal(200);
    expect({ primary: page.primary, replica: page.replica > 0 }).to.deep.equal({ primary: 0, replica: true });
  });

  // Last: it ends the primary.
  it('a failover: a 201 committed with a synchronous standby (remote_apply) survives the promotion, one committed asynchronously while the standby was away is lost', async () => {
    /** synchronous_standby_names is applied by the primary's checkpointer after the reload: until the standby is in that state (polled). */
    async function standbyState(names: string, state: 'sync' | 'async'): Promise<void> {
      await primaryDb!.raw(`ALTER SYSTEM SET synchronous_standby_names = '${names}'`);
      await primaryDb!.raw("ALTER SYSTEM SET synchronous_commit = 'remote_apply'");
      await primaryDb!.raw('SELECT pg_reload_conf()');
      const deadline = Date.now() + 30_000;
      while (((await primaryDb!.raw('SELECT sync_state FROM pg_stat_replication')) as { rows: { sync_state: string }[] }).rows[0]?.sync_state !== state) {
        if (Date.now() > deadline) throw new Error(`the standby is not ${state} after 30 s`);
        await wait(20);
      }
    }

    await standbyState('*', 'sync');
    const kept = await newSale();
    expect(kept.status, JSON.stringify(kept.body)).to.equal(201);
    // remote_apply: the 201 came once the standby had applied it, so a read there sees it at once.
    expect(await replicaDb!('qr_transactions').where({ id: kept.body.qr_id }).first('id')).to.deep.equal({ id: kept.body.qr_id });

    await standbyState('', 'async');
    // Each pool is closed before its server goes: no connection of theirs is cut under them.
    await replicaDb!.destroy();
    await standby!.crash();
    const lost = await newSale();
    expect(lost.status, JSON.stringify(lost.body)).to.equal(201);
    expect(await primaryDb!('qr_transactions').where({ id: lost.body.qr_id }).first('id')).to.deep.equal({ id: lost.body.qr_id });
    await stack!.close();
    stack = undefined;
    for (const handle of [primaryDb, workersDb]) await handle!.destroy();

    // The primary is lost; the standby comes back and is promoted with what it had received.
    await primary!.crash();
    await standby!.start();
    replicaDb = knexFactory(knexConfig(standby!.url(DATABASE)));
    await replicaDb.raw('SELECT pg_promote()');
    const onPromoted = await replicaDb!('qr_transactions').whereIn('id', [kept.body.qr_id, lost.body.qr_id]).pluck('id');
    expect(onPromoted).to.deep.equal([kept.body.qr_id]);
  });
});
