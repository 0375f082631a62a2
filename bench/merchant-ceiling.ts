// Per-merchant ceiling (issue #40): every confirmation of a merchant takes its next folio from one row
// (`merchant_folios`), locked from the folio's UPSERT to the transaction's COMMIT, so one merchant's
// confirmations pass that row one at a time whatever the number of API processes. This confirms sales
// through `recordConfirmation` itself (the statement sequence the buyer's confirm runs) on PostgreSQL, with
// C connections at once, all of one merchant and then spread over M merchants, and prints confirmations/s
// and the share of the sampled backends waiting on a lock. `npm run bench:ceiling`; its own database.
import { randomUUID } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { bootstrapAccount } from '../cli/bootstrap.js';
import { loadConfig } from '../shared/platform/config.js';
import { ensureDatabase, knexConfig } from '../shared/platform/db.js';
import { newId } from '../shared/platform/ids.js';
import { recordConfirmation } from '../shared/repositories/invoices.js';
import { BUYER } from '../test/helpers/buyer.js';
import { machine } from './figures.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/autofactura_bench_ceiling';
const CONFIRMATIONS = Number(process.env.BENCH_CEILING_CONFIRMATIONS ?? 3000);
const MERCHANTS = Number(process.env.BENCH_CEILING_MERCHANTS ?? 8);
const CONCURRENCY = (process.env.BENCH_CEILING_CONCURRENCY ?? '1,16,50').split(',').map(Number);

interface Run {
  merchants: number;
  connections: number;
  confirmations: number;
  perSecond: number;
  /** Of the run's backends sampled every 5 ms while busy, the share waiting on a lock (the folio row). */
  lockWaitShare: number;
}

/** `count` open sales per merchant, written by the database itself. */
async function seedSales(db: Knex, merchantIds: string[], count: number): Promise<Map<string, string[]>> {
  const bySale = new Map<string, string[]>();
  for (const merchantId of merchantIds) {
    const tag = `c${randomUUID().slice(0, 8)}`;
    const { rows } = (await db.raw(
      // Ids and tokens carry their instant (the month's partition checks it), as the service makes them.
      `INSERT INTO qr_transactions (id, merchant_id, mode, store_uid, sale_id, idempotency_key, operation, amount, subtotal, currency,
         sat_payment_method, sat_payment_form, type_of_receipt, export_code, status, token, time_zone, issued_local, qr_png,
         created_at, updated_at, expires_at)
       SELECT 'tra_' || qr_key_at(a.at), ?, 'development', 'bench', '${tag}-' || n, '${tag}-' || n, 'INVOICE', 302.32, 262, 'MXN',
         'PUE', '01', 'I', '01', 'PENDING', qr_key_at(a.at), 'America/Mexico_City', '2026-10-15T12:00:00', '\\x00',
         a.at, a.at, now() + interval '1 day'
       FROM generate_series(1, ?) AS n, LATERAL (SELECT date_trunc('milliseconds', clock_timestamp()) AS at) a RETURNING id`,
      [merchantId, count],
    )) as { rows: { id: string }[] };
    bySale.set(
      merchantId,
      rows.map((r) => r.id),
    );
  }
  return bySale;
}

async function lockSampler(db: Knex, applicationName: string): Promise<() => Promise<number>> {
  let waiting = 0;
  let busy = 0;
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      const { rows } = (await db.raw(
        `SELECT count(*) FILTER (WHERE wait_event_type = 'Lock')::int AS waiting, count(*) FILTER (WHERE state <> 'idle')::int AS busy
         FROM pg_stat_activity WHERE application_name = ?`,
        [applicationName],
      )) as { rows: { waiting: number; busy: number }[] };
      waiting += rows[0]!.waiting;
      busy += rows[0]!.busy;
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return async () => {
    stop = true;
    await loop;
    return busy === 0 ? 0 : Math.round((waiting / busy) * 1000) / 10;
  };
}

async function run(sampler: Knex, merchantIds: string[], connections: number): Promise<Run> {
  const applicationName = `ceiling-${randomUUID().slice(0, 8)}`;
  const db = knexFactory({ ...knexConfig(`${DATABASE_URL}?application_name=${applicationName}`), pool: { min: connections, max: connections } });
  try {
    const perMerchant = Math.ceil(CONFIRMATIONS / merchantIds.length);
    const sales = await seedSales(db, merchantIds, perMerchant);
    const work = merchantIds.flatMap((merchantId, m) => sales.get(merchantId)!.map((id, i) => ({ merchantId, id, order: i * merchantIds.length + m })));
    work.sort((a, b) => a.order - b.order);
    const stopSampling = await lockSampler(sampler, applicationName);
    let next = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (next < work.length) {
          const sale = work[next++]!;
          const outcome = await recordConfirmation(db, { invoiceId: newId('invoice'), transactionIds: [sale.id], merchantId: sale.merchantId, customer: BUYER });
          if (!outcome.ok) throw new Error(`confirmation refused: ${outcome.reason}`);
        }
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    return { merchants: merchantIds.length, connections, confirmations: work.length, perSecond: Math.round(work.length / seconds), lockWaitShare: await stopSampling() };
  } finally {
    await db.destroy();
  }
}

async function main(): Promise<void> {
  await ensureDatabase(DATABASE_URL);
  const db = knexFactory(knexConfig(DATABASE_URL));
  try {
    await db.raw('DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;');
    await db.migrate.latest();
    const config = loadConfig({ ...process.env, DATABASE_URL });
    const merchantIds: string[] = [];
    for (let i = 0; i < MERCHANTS; i++) merchantIds.push((await bootstrapAccount(db, config, `ceiling-${i}`)).merchantId);
    await run(db, merchantIds.slice(0, 1), 4); // warm-up: JIT, pools, plans
    const runs: Run[] = [];
    for (const connections of CONCURRENCY) {
      runs.push(await run(db, merchantIds.slice(0, 1), connections));
      runs.push(await run(db, merchantIds, connections));
    }
    const m = machine();
    process.stdout.write(`\nConfirmations through recordConfirmation on PostgreSQL (${m.cores} cores, load ${m.loadAverage.join(' ')})\n`);
    process.stdout.write(`${'merchants'.padEnd(12)}${'connections'.padStart(12)}${'confirmations'.padStart(15)}${'per second'.padStart(12)}${'lock waits'.padStart(12)}\n`);
    for (const r of runs) {
      process.stdout.write(
        `${String(r.merchants).padEnd(12)}${String(r.connections).padStart(12)}${String(r.confirmations).padStart(15)}${String(r.perSecond).padStart(12)}${`${r.lockWaitShare} %`.padStart(12)}\n`,
      );
    }
    process.stdout.write(`${JSON.stringify({ machine: m, runs })}\n`);
  } finally {
    await db.destroy();
  }
}

await main();
