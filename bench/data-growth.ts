// Does PostgreSQL keep its speed as the QR tables grow? The hot statements — each run through the
// repository function the service calls — timed at 100,000 QR transactions and again at 10,000,000 in
// the same run, with the plan of every statement they send (EXPLAIN (ANALYZE, BUFFERS), rolled back).
// The rows are written by PostgreSQL itself (INSERT … SELECT generate_series). The first 100,000 are
// today's traffic (pending, scanned, due, invoiced, a closed period's unclaimed sales); the rest is a
// year of history (expired and reported in a global invoice, or invoiced), so the second measurement
// is "the same day on a table 100× older". Its own database, dropped at the end.
//   npm run bench:data            (BENCH_DATA_ROWS=100000,10000000 by default; BENCH_DATA_KEEP=1 keeps the database)
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import pg from 'pg';
import knexFactory, { type Knex } from 'knex';
import { Redis } from 'ioredis';
import { bootstrapAccount } from '../cli/bootstrap.js';
import { loadConfig } from '../shared/platform/config.js';
import { ensureDatabase, knexConfig } from '../shared/platform/db.js';
import { newQrId } from '../shared/platform/ids.js';
import { newQrToken } from '../shared/qr/qr-link.js';
import { globalPeriod } from '../shared/global-invoice/global-period.js';
import { createProducers, type Producers } from '../shared/platform/queues.js';
import { redisOptions } from '../shared/platform/redis.js';
import {
  findQrTransaction,
  recordQrTransaction,
  tokenForShortCode,
  dueExpirySeconds,
  expireQrTransactions,
  type NewQrTransaction,
} from '../shared/repositories/qr-transactions.js';
import { findSale } from '../shared/repositories/sales.js';
import { lockUnclaimedSales, unreportedPeriods } from '../shared/repositories/global-invoices.js';
import { readStatusFigures } from '../shared/status/status-figures.js';
import { sweepStampingJob } from '../workers/sweep-stamping.js';
import { exportInvoices, listInvoices, listQrs } from '../shared/repositories/books.js';
import type { Keyset } from '../shared/platform/keyset-cursor.js';
import { removeKeysMatching } from '../test/helpers/redis-keys.js';

const QUEUE_PREFIX = `afbenchdata${process.pid}`;
import { EXPIRY_PLAN_WINDOW_MS } from '../shared/domain/expiry-buckets.js';

const SIZES = (process.env.BENCH_DATA_ROWS ?? '100000,10000000').split(',').map(Number);
const CURRENT = SIZES[0]!;
const DATABASE_URL = process.env.BENCH_DATA_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/autofactura_bench_data';
const REPS = Number(process.env.BENCH_DATA_REPS ?? 200);
/** Due QRs of today's block, expired EXPIRE_REPS × 1,000 at a time. */
const EXPIRE_REPS = 5;
const UNCLAIMED = 1000;
const DAY_S = 86_400;

// --- what PostgreSQL writes ------------------------------------------------------------------------

const txId = (n: string) => `'tra_' || substr(md5('q' || ${n}), 1, 22)`;
const token = (n: string) => `md5(${n} || 't') || md5(${n} || 'u')`;
const shortCode = (n: string) => `upper(substr(md5('s' || ${n}), 1, 6) || to_hex(${n}))`;
const invoiceId = (n: string) => `'cfd_' || substr(md5('i' || ${n}), 1, 22)`;
const HISTORY_GLOBAL = 'cfd_history_global';

/**
 * Rows (from, to]. Today's block (n ≤ CURRENT): created in the last 24 hours; n ≤ 5,000 due now, then the
 * closed period's unclaimed sales, 10 % invoiced, 20 % expired, 10 % scanned, the rest pending. History
 * (n > CURRENT): 2 to 365 days old, 5 % invoiced, the rest expired and reported in a global invoice.
 */
async function seed(db: Knex, merchantId: string, from: number, to: number, closedPeriodEnd: Date): Promise<void> {
  const dueEnd = EXPIRE_REPS * 1000;
  const status = `CASE WHEN n > ${CURRENT} THEN (CASE WHEN n % 20 = 0 THEN 'INVOICED' ELSE 'EXPIRED' END)
      WHEN n <= ${dueEnd} THEN 'PENDING' WHEN n <= ${dueEnd + UNCLAIMED} THEN 'EXPIRED'
      WHEN n % 10 = 0 THEN 'INVOICED' WHEN n % 10 IN (1, 2) THEN 'EXPIRED' WHEN n % 10 = 3 THEN 'SCANNED' ELSE 'PENDING' END`;
  // Before the sales' partitioning migration's instant (qr_legacy_before()): the history is the legacy partition's,
  // whose ids carry no instant (a month's partition CHECKs its ids carry theirs: the bench's are made from n).
  const created = `least(CASE WHEN n > ${CURRENT} THEN now() - interval '2 days' - ((n * 7919) % (363 * ${DAY_S})) * interval '1 second'
      ELSE now() - (n % ${DAY_S - 60}) * interval '1 second' END, qr_legacy_before() - interval '1 millisecond')`;
  await db.transaction(async (trx) => {
    // Bulk history: the foreign keys are known good (one merchant, invoices written below), so their per-row checks are skipped.
    await trx.raw('SET LOCAL session_replication_role = replica');
    await trx.raw(
      `INSERT INTO qr_transactions (id, merchant_id, mode, store_uid, sale_id, idempotency_key, operation, amount, subtotal, currency,
        sat_payment_method, sat_payment_form, type_of_receipt, export_code, status, token, short_code, time_zone, issued_local, qr_png,
        created_at, updated_at, scanned_at, expires_at, expired_at, global_periodicity, global_period_end, global_invoice_id)
      SELECT ${txId('n')}, ?, 'development', 'store-' || (n % 50), 'S-' || n, md5('k' || n), 'INVOICE', 302.32, 262, 'MXN',
        'PUE', '04', 'I', '01', s.status, ${token('n')}, ${shortCode('n')}, 'America/Mexico_City', '2026-11-01T12:00:00',
        CASE WHEN s.status IN ('PENDING', 'SCANNED') THEN decode(repeat('00', 1300), 'hex') END,
        c.at, c.at, CASE WHEN s.status = 'SCANNED' THEN c.at + interval '1 minute' END,
        CASE WHEN n <= ${dueEnd} THEN now() - interval '1 minute' WHEN n <= ${dueEnd + UNCLAIMED} THEN ?::timestamptz - interval '1 minute'
          WHEN s.status IN ('PENDING', 'SCANNED') THEN now() + ((n % 20) + 1) * interval '1 day' ELSE c.at + interval '1 day' END,
        CASE WHEN s.status = 'EXPIRED' THEN least(now(), c.at + interval '1 day') END,
        '04', CASE WHEN n > ${dueEnd} AND n <= ${dueEnd + UNCLAIMED} THEN ?::timestamptz ELSE c.at + interval '30 days' END,
        CASE WHEN n > ${CURRENT} AND s.status = 'EXPIRED' THEN '${HISTORY_GLOBAL}' END
      FROM generate_series(?::bigint, ?::bigint) AS n, LATERAL (SELECT ${status} AS status) s, LATERAL (SELECT ${created} AS at) c`,
      [merchantId, closedPeriodEnd, closedPeriodEnd, from + 1, to],
    );
    await trx.raw(
      `INSERT INTO qr_concepts (transaction_id, transaction_created_at, position, description, amount, quantity, unit_price, sat_unit_key, sat_product_service_key, sat_tax_object_key)
      SELECT ${txId('n')}, ${created}, 0, 'Gasolina regular', 262, 12.186, 21.5, 'LTR', '15101514', '02' FROM generate_series(?::bigint, ?::bigint) AS n`,
      [from + 1, to],
    );
    await trx.raw(
      `INSERT INTO qr_concept_taxes (transaction_id, transaction_created_at, concept_position, position, type, tax, factor, rate, taxable_base, amount)
      SELECT ${txId('n')}, ${created}, 0, 0, 'Traslado', '002', 'Tasa', '0.160000', 262, 41.92 FROM generate_series(?::bigint, ?::bigint) AS n`,
      [from + 1, to],
    );
    const invoiced = `n % (CASE WHEN n > ${CURRENT} THEN 20 ELSE 10 END) = 0 AND n > ${EXPIRE_REPS * 1000 + UNCLAIMED}`;
    await trx.raw(
      `INSERT INTO invoices (id, transaction_id, merchant_id, status, folio, customer, uuid, stamped_at, subtotal, total, xml_file_key, pdf_file_key,
        email_sent_at, created_at, updated_at)
      SELECT ${invoiceId('n')}, ${txId('n')}, ?, 'ACTIVE', n, '{"rfc":"XAXX010101000"}', md5('u' || n)::uuid::text, c.at + interval '20 seconds', 262, 302.32,
        'xml/' || n, 'pdf/' || n, c.at + interval '1 minute', c.at, c.at + interval '20 seconds'
      FROM generate_series(?::bigint, ?::bigint) AS n, LATERAL (SELECT ${created} + interval '5 minutes' AS at) c WHERE ${invoiced}`,
      [merchantId, from + 1, to],
    );
    await trx.raw(
      `INSERT INTO invoice_tickets (invoice_id, position, transaction_id, transaction_created_at)
      SELECT ${invoiceId('n')}, 0, ${txId('n')}, ${created} FROM generate_series(?::bigint, ?::bigint) AS n WHERE ${invoiced}`,
      [from + 1, to],
    );
  });
  await db.raw('ANALYZE qr_transactions, qr_concepts, qr_concept_taxes, invoices, invoice_tickets');
}

// --- the statements --------------------------------------------------------------------------------

interface Context {
  merchantId: string;
  producers: Producers;
  closedPeriodEnd: Date;
  /** Rows written so far: lookups pick among all of them. */
  rows: number;
}

/** A row number: today's block or anywhere in the table. */
const pick = (ctx: Context, i: number) => 1 + ((i * 2_654_435_761) % ctx.rows);
const one = async (db: Knex, sql: string) => ((await db.raw(sql)) as { rows: { v: string }[] }).rows[0]!.v;

let created = 0;
function newSale(ctx: Context): NewQrTransaction {
  const now = new Date();
  const id = newQrId(now);
  created += 1;
  return {
    transaction: {
      id,
      merchant_id: ctx.merchantId,
      mode: 'development',
      store_uid: 'store-1',
      sale_id: `B-${created}`,
      idempotency_key: randomUUID(),
      operation: 'INVOICE',
      amount: '302.32',
      subtotal: '262',
      currency: 'MXN',
      exchange_rate: null,
      sat_payment_method: 'PUE',
      sat_payment_form: '04',
      type_of_receipt: 'I',
      export_code: '01',
      status: 'PENDING',
      related_cfdis: null,
      global_info: null,
      metadata: null,
      token: newQrToken(now),
      short_code: `BENCH${process.pid}X${created}`,
      time_zone: 'America/Mexico_City',
      issued_local: '2026-11-01T12:00:00',
      qr_png: Buffer.alloc(1300),
      created_at: now,
      updated_at: now,
      scanned_at: null,
      expires_at: new Date(now.getTime() + 7 * DAY_S * 1000),
      confirmed_at: null,
      global_periodicity: '04',
      global_period_end: new Date(now.getTime() + 30 * DAY_S * 1000),
      requested_expires_at: null,
      global_invoice_id: null,
      offline_key_id: null,
      sold_at: null,
    },
    concepts: [0, 1, 2].map((position) => ({
      transaction_id: id,
      position,
      sku: null,
      description: 'Gasolina regular',
      amount: '87.333333',
      quantity: '1',
      discount: null,
      unit_price: '87.333333',
      sat_unit_key: 'LTR',
      sat_product_service_key: '15101514',
      sat_tax_object_key: '02',
    })),
    taxes: [0, 1, 2].map((concept_position) => ({
      transaction_id: id,
      concept_position,
      position: 0,
      type: 'Traslado' as const,
      tax: '002',
      factor: 'Tasa' as const,
      rate: '0.160000',
      taxable_base: '87.333333',
      amount: '13.973333',
    })),
  };
}

interface Statement {
  name: string;
  /** Fewer repetitions for the statements that change many rows. */
  reps?: number;
  /** Before the timed repetitions (e.g. make QRs due again). */
  prepare?: (db: Knex) => Promise<void>;
  /** The id, token or code a lookup asks for, read before the clock starts. */
  input?: (db: Knex, ctx: Context, i: number) => Promise<string>;
  run: (db: Knex, ctx: Context, input: string) => Promise<unknown>;
}

const STATEMENTS: Statement[] = [
  { name: 'create (POST /v1/qrs: claim + sale + 3 concepts + 3 taxes)', run: (db, ctx) => recordQrTransaction(db, newSale(ctx), { scope: 'POST /v1/qrs', fingerprint: 'bench' }) },
  {
    name: 'GET /v1/qrs/{id}',
    input: (db, ctx, i) => one(db, `SELECT ${txId(String(pick(ctx, i)))} AS v`),
    run: (db, ctx, id) => findQrTransaction(db, ctx.merchantId, 'development', id),
  },
  {
    name: 'resolve by token (buyer page: findSale)',
    input: (db, ctx, i) => one(db, `SELECT ${token(String(pick(ctx, i)))} AS v`),
    run: (db, _ctx, value) => findSale(db, { token: value }),
  },
  {
    name: 'resolve by short code',
    input: (db, ctx, i) => one(db, `SELECT ${shortCode(String(pick(ctx, i)))} AS v`),
    run: (db, _ctx, value) => tokenForShortCode(db, value),
  },
  { name: 'expiry plan (dueExpirySeconds, 2 min window)', run: (db) => dueExpirySeconds(db, new Date(), new Date(Date.now() + EXPIRY_PLAN_WINDOW_MS)) },
  {
    name: 'expire due QRs (1,000 per UPDATE; the expiry sweep runs the same)',
    reps: EXPIRE_REPS,
    prepare: async (db) => {
      await db.raw(`UPDATE qr_transactions SET status = 'PENDING', expired_at = NULL WHERE id IN (SELECT ${txId('n')} FROM generate_series(1, ${EXPIRE_REPS * 1000}) n)`);
      await db.raw('DELETE FROM webhook_events'); // none: the bench account has no endpoint
    },
    run: (db) => expireQrTransactions(db, { limit: 1000 }),
  },
  { name: 'global invoice: unreported periods', reps: 20, run: (db) => unreportedPeriods(db, new Date()) },
  {
    name: `global invoice: lock a period's ${UNCLAIMED} unclaimed sales + concepts + taxes`,
    reps: 20,
    run: (db, ctx) =>
      db
        .transaction(async (trx) => {
          await lockUnclaimedSales(trx, ctx.merchantId, ctx.closedPeriodEnd);
          throw new Rollback();
        })
        .catch((err: unknown) => {
          if (!(err instanceof Rollback)) throw err;
        }),
  },
  { name: 'stamp sweep (STAMPING older than the period)', run: (db, ctx) => sweepStampingJob(db, ctx.producers, loadConfig()) },
  { name: 'status page figures (4 statements)', reps: 20, run: (db) => readStatusFigures(db) },
  // The merchant's books (issue #32): a page is an index range after the cursor, at any depth.
  {
    name: 'books: a page of 20 QRs after a cursor anywhere in the history',
    input: (db, ctx, i) => one(db, `SELECT ${KEYSET_OF} AS v FROM qr_transactions WHERE id = ${txId(String(pick(ctx, i)))}`),
    run: (db, ctx, key) => listQrs(db, { merchantIds: [ctx.merchantId], mode: 'development' }, {}, JSON.parse(key) as Keyset, 21),
  },
  { name: 'books: the first page of 20 CFDIs', run: (db, ctx) => listInvoices(db, { merchantIds: [ctx.merchantId] }, {}, undefined, 21) },
  {
    name: 'books: one export batch (200 stamped CFDIs)',
    reps: 50,
    run: (db, ctx) => exportInvoices(db, { merchantIds: [ctx.merchantId] }, { statuses: ['ACTIVE'] }, undefined, 200),
  },
];

/** A row's keyset as the books' cursor holds it (shared/platform/keyset-cursor.ts), as JSON. */
const KEYSET_OF = `json_build_object('at', to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), 'id', id)::text`;

class Rollback extends Error {}

// --- capturing what a statement sends, to EXPLAIN it ----------------------------------------------

interface Sent {
  text: string;
  values: unknown[];
}
let capture: Sent[] | undefined;
type QueryFn = (this: pg.Client, ...args: unknown[]) => unknown;
const clientPrototype = pg.Client.prototype as unknown as { query: QueryFn };
const originalQuery = clientPrototype.query;
clientPrototype.query = function (this: pg.Client, ...args: unknown[]) {
  if (capture) {
    const [first, second] = args;
    const text = typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text;
    const values = Array.isArray(second) ? second : ((first as { values?: unknown[] } | undefined)?.values ?? []);
    if (text && !/^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET|EXPLAIN|SELECT 'tra_|SELECT md5|SELECT upper)/i.test(text)) capture.push({ text, values });
  }
  return originalQuery.apply(this, args);
};

async function plansOf(db: Knex, statement: Statement, ctx: Context): Promise<string[]> {
  const sent: Sent[] = [];
  await statement.prepare?.(db);
  await db
    .transaction(async (trx) => {
      capture = sent;
      try {
        await statement.run(trx, ctx, (await statement.input?.(db, ctx, 7)) ?? '');
      } finally {
        capture = undefined;
      }
      throw new Rollback();
    })
    .catch((err: unknown) => {
      if (!(err instanceof Rollback)) throw err;
    });
  const plans: string[] = [];
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    for (const s of sent) {
      await client.query('BEGIN');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>({ text: `EXPLAIN (ANALYZE, BUFFERS) ${s.text}`, values: s.values });
      await client.query('ROLLBACK');
      plans.push(`-- ${s.text.replace(/\s+/g, ' ').slice(0, 160)}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`);
    }
  } finally {
    await client.end();
  }
  return plans;
}

// --- the run --------------------------------------------------------------------------------------

interface Timing {
  median: number;
  p95: number;
}

async function time(db: Knex, statement: Statement, ctx: Context): Promise<Timing> {
  await statement.prepare?.(db);
  const reps = statement.reps ?? REPS;
  const ms: number[] = [];
  for (let i = 0; i < reps; i++) {
    const input = (await statement.input?.(db, ctx, i)) ?? '';
    const start = performance.now();
    await statement.run(db, ctx, input);
    ms.push(performance.now() - start);
  }
  ms.sort((a, b) => a - b);
  const at = (q: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]! * 100) / 100;
  return { median: at(0.5), p95: at(0.95) };
}

/** A plan's shape: its nodes (with their index), one line. */
function shape(plan: string): string {
  return plan
    .split('\n')
    .filter((line) => !line.startsWith('--') && /^\s*(->\s*)?[A-Z][A-Za-z ]+( {2}|\(| on | using )/.test(line))
    .map((line) =>
      line
        .replace(/^\s*(->\s*)?/, '')
        .replace(/\s+\(cost.*$/, '')
        .replace(/\s+\(actual.*$/, ''),
    )
    .filter(
      (line) =>
        !/^(Planning|Execution|Buffers|Sort Key|Group Key|Filter|Index Cond|Recheck|Heap Blocks|Rows Removed|Output|Hash Cond|Join Filter|Sort Method|Worker|Batches)/.test(line),
    )
    .join(' › ');
}

const figure = (plans: string[], what: RegExp) =>
  plans
    .map((p) => what.exec(p)?.[1])
    .filter((v): v is string => v !== undefined)
    .join(' + ');

async function main(): Promise<void> {
  await ensureDatabase(DATABASE_URL);
  const db = knexFactory(knexConfig(DATABASE_URL));
  const redis = new Redis(redisOptions('blocking', loadConfig().redisUrl));
  const producers = await createProducers(redis, loadConfig(), QUEUE_PREFIX);
  const keep = process.env.BENCH_DATA_KEEP === '1';
  const report: string[] = [];
  try {
    await db.raw('DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;');
    await db.migrate.latest();
    const account = await bootstrapAccount(db, loadConfig(), 'bench-data');
    const closedPeriodEnd = globalPeriod(new Date(Date.now() - 40 * DAY_S * 1000), '04').end;
    await db.raw(`INSERT INTO invoices (id, merchant_id, status, folio, customer, document) VALUES ('${HISTORY_GLOBAL}', ?, 'ACTIVE', 0, '{}', '{}')`, [account.merchantId]);
    const ctx: Context = { merchantId: account.merchantId, producers, closedPeriodEnd, rows: 0 };
    const results: { size: number; seedS: number; bytes: string; timings: Timing[]; plans: string[][] }[] = [];
    for (const size of SIZES) {
      const start = performance.now();
      // In slices, so one statement's memory and WAL stay bounded.
      for (let from = ctx.rows; from < size; from += 1_000_000) await seed(db, ctx.merchantId, from, Math.min(size, from + 1_000_000), closedPeriodEnd);
      await db.raw('VACUUM ANALYZE qr_transactions');
      ctx.rows = size;
      const seedS = Math.round((performance.now() - start) / 1000);
      const bytes = await one(
        db,
        `SELECT pg_size_pretty(pg_total_relation_size('qr_transactions') + pg_total_relation_size('qr_concepts') + pg_total_relation_size('qr_concept_taxes')
          + pg_total_relation_size('invoices') + pg_total_relation_size('invoice_tickets')) AS v`,
      );
      console.error(`${size} rows written in ${seedS} s (${bytes})`);
      const timings: Timing[] = [];
      const plans: string[][] = [];
      for (const statement of STATEMENTS) {
        timings.push(await time(db, statement, ctx));
        plans.push(await plansOf(db, statement, ctx));
        console.error(`  ${statement.name}: ${JSON.stringify(timings.at(-1))}`);
      }
      results.push({ size, seedS, bytes, timings, plans });
    }
    report.push(
      `| statement | ${results.map((r) => `${r.size.toLocaleString('en')} rows: median / p95 ms`).join(' | ')} | buffers at ${results.at(-1)!.size.toLocaleString('en')} | plan at ${results.at(-1)!.size.toLocaleString('en')} |`,
    );
    report.push(`|---|${results.map(() => '---|').join('')}---|---|`);
    STATEMENTS.forEach((statement, s) => {
      const last = results.at(-1)!.plans[s]!;
      report.push(
        `| ${statement.name} | ${results.map((r) => `${r.timings[s]!.median} / ${r.timings[s]!.p95}`).join(' | ')} | ${figure(last, /^\s*Buffers: (shared [^\n]*)/m) || '—'} | ${last.map(shape).join(' ; ')} |`,
      );
    });
    report.push('', ...results.map((r) => `- ${r.size.toLocaleString('en')} rows: written in ${r.seedS} s, ${r.bytes} (QR tables, invoices, tickets)`));
    const full = results.flatMap((r) => STATEMENTS.flatMap((statement, s) => [`\n## ${statement.name} at ${r.size} rows\n`, ...r.plans[s]!]));
    const out = process.env.BENCH_DATA_OUT ?? `/tmp/bench-data-growth-${process.pid}.md`;
    writeFileSync(out, `${report.join('\n')}\n\n# Plans\n${full.join('\n')}\n`);
    console.log(report.join('\n'));
    console.log(`\nfull plans: ${out}`);
  } finally {
    await producers.close();
    // The Redis is shared: none of this run's keys stay (the queues' meta keys included).
    await removeKeysMatching(redis, `${QUEUE_PREFIX}:*`).catch(() => undefined);
    redis.disconnect();
    await db.destroy();
    if (!keep) {
      const url = new URL(DATABASE_URL);
      const name = url.pathname.slice(1);
      url.pathname = '/postgres';
      const admin = new pg.Client({ connectionString: url.toString() });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
      await admin.end();
    }
  }
}

await main();
