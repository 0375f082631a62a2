// Does PostgreSQL keep its speed as the QR tables grow? The hot statements — each run through the
// repository function the service calls — timed at 100,000 QR transactions and again at 10,000,000 in
// the same run, with the plan of every statement they send (EXPLAIN (ANALYZE, BUFFERS), rolled back).
// The rows are written by PostgreSQL itself (INSERT … SELECT generate_series). The first 100,000 are
// today's traffic (pending, scanned, due, invoiced, a closed period's unclaimed sales); the rest is a
// year of history (expired and reported in a global invoice, or invoiced), so the second measurement
// is "the same day on a table 100× older". Its own database, dropped at the end.
//   npm run bench:data            (BENCH_DATA_ROWS=100000,10000000 by default; BENCH_DATA_KEEP=1 keeps the database)
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import knexFactory, { type Knex } from 'knex';
import { Redis } from 'ioredis';
import { bootstrapAccount } from '../cli/bootstrap.js';
import { loadConfig } from '../shared/platform/config.js';
import { ensureDatabase, knexConfig } from '../shared/platform/db.js';
import { newQrId } from '../shared/platform/ids.js';
import { newQrToken } from '../shared/qr/qr-link.js';
import { globalPeriod } from '../shared/global-invoice/global-period.js';
import { createDailyPartitions, utcDay } from '../shared/platform/daily-partitions.js';
import { partitionRanges, utcMonth } from '../shared/platform/monthly-partitions.js';
import { createSaleMonths, dropSaleMonth } from '../shared/repositories/sale-months.js';
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
import { partitionedTables } from '../workers/keep-partitions.js';
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

const MERCHANTS = Number(process.env.BENCH_DATA_MERCHANTS ?? 8);
/** The history's months: the deployment is taken to have moved to monthly partitions before them. */
const HISTORY_DAYS = 365;
const IDEMPOTENCY_DAYS = 35;
const EVENT_DAYS = 31;
const DUE_END = EXPIRE_REPS * 1000;
/** Today's rows of the first merchant: the due ones, then a closed period's unclaimed sales. */
const FIRST_MERCHANT_END = DUE_END + UNCLAIMED;

// Keys as the service makes them (shared/platform/ids.ts: 48 bits of the row's millisecond, then 80 bits),
// the 80 bits made from n so a lookup can name any row: bench_* functions, made below.
const txId = (n: string) => `'tra_' || bench_key(bench_created(${n}), 'q' || ${n})`;
const token = (n: string) => `bench_key(bench_created(${n}), 't' || ${n})`;
const shortCode = (n: string) => `upper(substr(md5('s' || ${n}), 1, 6) || to_hex(${n}))`;
const invoiceId = (n: string) => `'cfd_' || substr(md5('i' || ${n}), 1, 22)`;
const HISTORY_GLOBAL = 'cfd_history_global';

/**
 * The row number's instant, merchant and account, and the key, as SQL functions (IMMUTABLE: inlined).
 * Today's block (n ≤ CURRENT) spans the last 24 hours before `base`; the history (n > CURRENT) spans
 * 365 to 2 days before it, in n's order, so the rows go in as production writes them: in time order.
 */
async function installRowFunctions(db: Knex, base: Date, max: number, merchants: string[], accounts: string[]): Promise<void> {
  const history = Math.max(1, max - CURRENT);
  const text = (values: string[]) => `ARRAY[${values.map((v) => `'${v}'`).join(',')}]`;
  await db.raw(`CREATE FUNCTION bench_created(n bigint) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT date_trunc('milliseconds', CASE WHEN n > ${CURRENT}
      THEN timestamptz '${base.toISOString()}' - interval '${HISTORY_DAYS} days' + ((n - ${CURRENT})::float8 / ${history} * ${(HISTORY_DAYS - 2) * DAY_S}) * interval '1 second'
      ELSE timestamptz '${base.toISOString()}' - ((${CURRENT} - n)::float8 / ${CURRENT} * ${DAY_S - 60} + 60) * interval '1 second' END) $$`);
  await db.raw(`CREATE FUNCTION bench_key(at timestamptz, salt text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT rtrim(translate(encode(substr(int8send((extract(epoch FROM at) * 1000)::bigint), 3, 6)
      || substr(decode(md5(salt), 'hex'), 1, 10), 'base64'), '+/', '-_'), '=') $$`);
  const index = `CASE WHEN n <= ${FIRST_MERCHANT_END} THEN 1 ELSE 1 + n % ${merchants.length} END`;
  await db.raw(`CREATE FUNCTION bench_merchant(n bigint) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT (${text(merchants)})[${index}] $$`);
  await db.raw(`CREATE FUNCTION bench_account(n bigint) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT (${text(accounts)})[${index}] $$`);
}

/**
 * A deployment that moved to monthly partitions before its history: the migration's own partitions (from
 * its instant, empty here) give way to a legacy partition ending before the history and a partition per
 * month; the daily tables get a partition per day of their windows.
 */
async function partitionHistory(db: Knex, base: Date): Promise<void> {
  const legacyBefore = utcMonth(base, -13);
  for (const range of await partitionRanges(db, 'qr_transactions')) await dropSaleMonth(db, range);
  for (const table of ['qr_transactions', 'qr_concepts', 'qr_concept_taxes']) {
    await db.raw(`CREATE TABLE ?? PARTITION OF ?? FOR VALUES FROM (MINVALUE) TO ('${legacyBefore.toISOString()}')`, [`${table}_legacy`, table]);
  }
  await db.raw(
    `CREATE OR REPLACE FUNCTION qr_legacy_before() RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT timestamptz '${legacyBefore.toISOString()}' $$`,
  );
  await createSaleMonths(db, legacyBefore, utcMonth(base, 2));
  // The spans the keeper makes (idempotency records by the week).
  for (const { table, spanDays } of partitionedTables(loadConfig()).filter((t) => t.table !== 'webhook_deliveries')) {
    for (const { name } of await partitionRanges(db, table)) await db.raw('DROP TABLE ??', [name]);
    await createDailyPartitions(db, table, utcDay(base, -Math.max(IDEMPOTENCY_DAYS, EVENT_DAYS) - 1), utcDay(base, 7), spanDays);
  }
}

/** The stamped XML a stored file holds: the sample CFDI with the row's UUID (its size and its compressibility). */
const SAMPLE_XML = readFileSync(new URL('../test/fixtures/cfdi/stamped-sample.xml', import.meta.url), 'utf8').replace(/UUID="[^"]+"/, 'UUID="@UUID@"');

/** The tables a sale writes to, and what the size report sums. */
const SALE_TABLES = [
  'qr_transactions',
  'qr_concepts',
  'qr_concept_taxes',
  'qr_sale_keys',
  'qr_live_sales',
  'idempotency_keys',
  'webhook_events',
  'invoices',
  'invoice_tickets',
  'stored_files',
];

/**
 * Rows (from, to]. Today's block (n ≤ CURRENT): n ≤ 5,000 due now, then the closed period's unclaimed
 * sales, 10 % invoiced, 20 % expired, 10 % scanned, the rest pending. History (n > CURRENT): 5 % invoiced,
 * the rest expired and reported in a global invoice. Each sale: 3 concepts (two taxed with IVA, one not an
 * object of tax: 2 tax rows), its side rows; inside their windows its idempotency record and a webhook
 * event; each invoice its ticket and its stored XML. Merchant and account by n (today's first 6,000: the
 * first merchant's).
 */
async function seed(db: Knex, base: Date, from: number, to: number, closedPeriodEnd: Date): Promise<void> {
  const status = `CASE WHEN n > ${CURRENT} THEN (CASE WHEN n % 20 = 0 THEN 'INVOICED' ELSE 'EXPIRED' END)
      WHEN n <= ${DUE_END} THEN 'PENDING' WHEN n <= ${FIRST_MERCHANT_END} THEN 'EXPIRED'
      WHEN n % 10 = 0 THEN 'INVOICED' WHEN n % 10 IN (1, 2) THEN 'EXPIRED' WHEN n % 10 = 3 THEN 'SCANNED' ELSE 'PENDING' END`;
  const rows = `generate_series(?::bigint, ?::bigint) AS n, LATERAL (SELECT ${status} AS status, bench_created(n) AS at) s`;
  const range = [from + 1, to];
  const invoiced = `s.status = 'INVOICED' AND n > ${FIRST_MERCHANT_END}`;
  const baseAt = `timestamptz '${base.toISOString()}'`;
  await db.transaction(async (trx) => {
    // Bulk history: the foreign keys are known good and the triggers' rows are written here, so the per-row
    // checks and triggers are skipped.
    await trx.raw('SET LOCAL session_replication_role = replica');
    await trx.raw(
      `INSERT INTO qr_transactions (id, merchant_id, mode, store_uid, sale_id, idempotency_key, operation, amount, subtotal, currency,
        sat_payment_method, sat_payment_form, type_of_receipt, export_code, status, token, short_code, time_zone, issued_local, qr_png,
        created_at, updated_at, scanned_at, expires_at, expired_at, global_periodicity, global_period_end, global_invoice_id)
      SELECT ${txId('n')}, bench_merchant(n), 'development', 'store-' || (n % 50), 'S-' || n, md5('k' || n)::uuid::text, 'INVOICE', 300.40, 262, 'MXN',
        'PUE', '04', 'I', '01', s.status, ${token('n')}, ${shortCode('n')}, 'America/Mexico_City', '2026-11-01T12:00:00',
        CASE WHEN s.status IN ('PENDING', 'SCANNED') THEN decode(repeat('00', 1300), 'hex') END,
        s.at, s.at, CASE WHEN s.status = 'SCANNED' THEN s.at + interval '1 minute' END,
        CASE WHEN n <= ${DUE_END} THEN ${baseAt} - interval '1 minute' WHEN n <= ${FIRST_MERCHANT_END} THEN ?::timestamptz - interval '1 minute'
          WHEN s.status IN ('PENDING', 'SCANNED') THEN ${baseAt} + ((n % 20) + 1) * interval '1 day' ELSE s.at + interval '1 day' END,
        CASE WHEN s.status = 'EXPIRED' THEN least(${baseAt}, s.at + interval '1 day') END,
        '04', CASE WHEN n > ${DUE_END} AND n <= ${FIRST_MERCHANT_END} THEN ?::timestamptz ELSE s.at + interval '30 days' END,
        CASE WHEN n > ${CURRENT} AND s.status = 'EXPIRED' THEN '${HISTORY_GLOBAL}' END
      FROM ${rows}`,
      [closedPeriodEnd, closedPeriodEnd, ...range],
    );
    await trx.raw(
      `INSERT INTO qr_concepts (transaction_id, transaction_created_at, position, description, amount, quantity, unit_price, sat_unit_key, sat_product_service_key, sat_tax_object_key)
      SELECT ${txId('n')}, s.at, c.position, c.description, c.amount, c.quantity, c.unit_price, c.unit, c.product, c.object
      FROM ${rows}, (VALUES (0, 'Gasolina regular', 200, 10, 20, 'LTR', '15101514', '02'), (1, 'Aceite para motor 1 L', 40, 2, 20, 'H87', '15121501', '02'),
        (2, 'Propina', 22, 1, 22, 'E48', '90101500', '01')) AS c (position, description, amount, quantity, unit_price, unit, product, object)`,
      range,
    );
    await trx.raw(
      `INSERT INTO qr_concept_taxes (transaction_id, transaction_created_at, concept_position, position, type, tax, factor, rate, taxable_base, amount)
      SELECT ${txId('n')}, s.at, x.concept, 0, 'Traslado', '002', 'Tasa', '0.160000', x.base, x.amount
      FROM ${rows}, (VALUES (0, 200, 32), (1, 40, 6.4)) AS x (concept, base, amount)`,
      range,
    );
    // What the sale's statement and its trigger write beside it (qr_sale_keys, qr_live_sales).
    await trx.raw(
      `INSERT INTO qr_sale_keys (transaction_id, transaction_created_at, merchant_id, idempotency_key, short_code)
      SELECT ${txId('n')}, s.at, bench_merchant(n), md5('k' || n)::uuid::text, ${shortCode('n')} FROM ${rows}`,
      range,
    );
    await trx.raw(
      `INSERT INTO qr_live_sales (merchant_id, mode, sale_id, transaction_id, transaction_created_at)
      SELECT bench_merchant(n), 'development', 'S-' || n, ${txId('n')}, s.at FROM ${rows} WHERE s.status IN ('PENDING', 'SCANNED', 'INVOICED')`,
      range,
    );
    await trx.raw(
      `INSERT INTO idempotency_keys (merchant_id, scope, key, fingerprint, resource_id, created_at)
      SELECT bench_merchant(n), 'POST /v1/qrs', md5('k' || n)::uuid, md5('f' || n), ${txId('n')}, s.at
      FROM ${rows} WHERE s.at >= ${baseAt} - interval '${IDEMPOTENCY_DAYS} days'`,
      range,
    );
    // One announced transition per sale (qr.expired, invoice.stamped, …) for accounts with an endpoint: all here.
    await trx.raw(
      `INSERT INTO webhook_events (id, account_id, type, payload, created_at, dispatched_at)
      SELECT 'evt_' || substr(md5('e' || n), 1, 22), bench_account(n), CASE s.status WHEN 'INVOICED' THEN 'invoice.stamped' WHEN 'EXPIRED' THEN 'qr.expired' ELSE 'qr.created' END,
        jsonb_build_object('qr_id', ${txId('n')}, 'sale_id', 'S-' || n, 'store_uid', 'store-' || (n % 50), 'status', s.status, 'amount', '300.40', 'currency', 'MXN', 'at', s.at),
        s.at, s.at + interval '2 seconds'
      FROM ${rows} WHERE s.at >= ${baseAt} - interval '${EVENT_DAYS} days'`,
      range,
    );
    await trx.raw(
      `INSERT INTO invoices (id, transaction_id, merchant_id, status, folio, customer, uuid, stamped_at, subtotal, total, xml_file_key,
        email_sent_at, created_at, updated_at, document)
      SELECT ${invoiceId('n')}, ${txId('n')}, bench_merchant(n), 'ACTIVE', n, jsonb_build_object('rfc', 'XAXX010101000', 'name', 'PUBLICO EN GENERAL', 'email', 'buyer' || n || '@example.com'),
        md5('u' || n)::uuid::text, s.at + interval '5 minutes 20 seconds', 262, 300.40, 'xml/' || n,
        s.at + interval '6 minutes', s.at + interval '5 minutes', s.at + interval '5 minutes 20 seconds',
        jsonb_build_object('concepts', jsonb_build_array(
          jsonb_build_object('description', 'Gasolina regular', 'quantity', '10', 'unit_price', '20', 'amount', '200', 'taxes', jsonb_build_array(jsonb_build_object('tax', '002', 'rate', '0.160000', 'amount', '32'))),
          jsonb_build_object('description', 'Aceite para motor 1 L', 'quantity', '2', 'unit_price', '20', 'amount', '40', 'taxes', jsonb_build_array(jsonb_build_object('tax', '002', 'rate', '0.160000', 'amount', '6.4'))),
          jsonb_build_object('description', 'Propina', 'quantity', '1', 'unit_price', '22', 'amount', '22', 'taxes', '[]'::jsonb)),
          'subtotal', '262', 'total', '300.40', 'payment_form', '04', 'payment_method', 'PUE', 'use', 'S01')
      FROM ${rows} WHERE ${invoiced}`,
      range,
    );
    await trx.raw(
      `INSERT INTO invoice_tickets (invoice_id, position, transaction_id, transaction_created_at)
      SELECT ${invoiceId('n')}, 0, ${txId('n')}, s.at FROM ${rows} WHERE ${invoiced}`,
      range,
    );
    await trx.raw(
      `INSERT INTO stored_files (key, content_type, data, created_at)
      SELECT 'xml/' || n, 'application/xml', convert_to(replace(?, '@UUID@', upper(md5('u' || n)::uuid::text)), 'UTF8'), s.at + interval '5 minutes 20 seconds'
      FROM ${rows} WHERE ${invoiced}`,
      [SAMPLE_XML, ...range],
    );
  });
}

// --- the statements --------------------------------------------------------------------------------

interface Context {
  /** The first merchant: today's due and unclaimed sales, the books. */
  merchantId: string;
  merchants: string[];
  /** The seed's now: today's rows are the 24 hours before it. */
  base: Date;
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
      merchant_id: ctx.merchants[created % ctx.merchants.length]!,
      mode: 'development',
      store_uid: 'store-1',
      sale_id: `B-${process.pid}-${created}`,
      idempotency_key: randomUUID(),
      operation: 'INVOICE',
      amount: '300.40',
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
    concepts: [
      ['Gasolina regular', '200', '10', '20', 'LTR', '15101514', '02'],
      ['Aceite para motor 1 L', '40', '2', '20', 'H87', '15121501', '02'],
      ['Propina', '22', '1', '22', 'E48', '90101500', '01'],
    ].map(([description, amount, quantity, unitPrice, unit, product, object], position) => ({
      transaction_id: id,
      position,
      sku: null,
      description: description!,
      amount: amount!,
      quantity: quantity!,
      discount: null,
      unit_price: unitPrice!,
      sat_unit_key: unit!,
      sat_product_service_key: product!,
      sat_tax_object_key: object!,
    })),
    taxes: [
      [0, '200', '32'],
      [1, '40', '6.4'],
    ].map(([conceptPosition, base, amount]) => ({
      transaction_id: id,
      concept_position: conceptPosition as number,
      position: 0,
      type: 'Traslado' as const,
      tax: '002',
      factor: 'Tasa' as const,
      rate: '0.160000',
      taxable_base: base as string,
      amount: amount as string,
    })),
  };
}

interface Statement {
  name: string;
  /** Fewer repetitions for the statements that change many rows. */
  reps?: number;
  /** Before the timed repetitions (e.g. make QRs due again). */
  prepare?: (db: Knex, ctx: Context) => Promise<void>;
  /** The id, token or code a lookup asks for, read before the clock starts. */
  input?: (db: Knex, ctx: Context, i: number) => Promise<string>;
  run: (db: Knex, ctx: Context, input: string) => Promise<unknown>;
}

const STATEMENTS: Statement[] = [
  {
    name: 'create (POST /v1/qrs: claim + sale + 3 concepts + 2 taxes + side rows)',
    run: (db, ctx) => recordQrTransaction(db, newSale(ctx), { scope: 'POST /v1/qrs', fingerprint: 'bench' }),
  },
  {
    name: 'GET /v1/qrs/{id}',
    input: (db, ctx, i) => one(db, `SELECT bench_merchant(${pick(ctx, i)}) || ' ' || ${txId(String(pick(ctx, i)))} AS v`),
    run: (db, _ctx, input) => findQrTransaction(db, input.split(' ')[0]!, 'development', input.split(' ')[1]!),
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
    prepare: async (db, ctx) => {
      await db.raw(`UPDATE qr_transactions SET status = 'PENDING', expired_at = NULL WHERE id IN (SELECT ${txId('n')} FROM generate_series(1, ${EXPIRE_REPS * 1000}) n)`);
      // None: the bench's accounts have no endpoint (the seeded events are all from before the run).
      await db.raw('DELETE FROM webhook_events WHERE created_at > ?', [ctx.base]);
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
    input: (db, ctx, i) => one(db, `SELECT merchant_id || ' ' || ${KEYSET_OF} AS v FROM qr_transactions WHERE id = ${txId(String(pick(ctx, i)))}`),
    run: (db, _ctx, input) =>
      listQrs(db, { merchantIds: [input.slice(0, input.indexOf(' '))], mode: 'development' }, {}, JSON.parse(input.slice(input.indexOf(' ') + 1)) as Keyset, 21),
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
    if (text && !/^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET|EXPLAIN|SELECT bench_|SELECT merchant_id \|\|)/i.test(text)) capture.push({ text, values });
  }
  return originalQuery.apply(this, args);
};

async function plansOf(db: Knex, statement: Statement, ctx: Context): Promise<string[]> {
  const sent: Sent[] = [];
  await statement.prepare?.(db, ctx);
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
      // Twice, the second kept: a new connection's first plan reads the catalog (its planning time and buffers).
      let rows: { 'QUERY PLAN': string }[] = [];
      for (let run = 0; run < 2; run++) {
        await client.query('BEGIN');
        rows = (await client.query<{ 'QUERY PLAN': string }>({ text: `EXPLAIN (ANALYZE, BUFFERS) ${s.text}`, values: s.values })).rows;
        await client.query('ROLLBACK');
      }
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
  /** WAL a run writes (the database's, over the runs: autovacuum's too, if it ran). */
  walBytes: number;
}

async function time(db: Knex, statement: Statement, ctx: Context): Promise<Timing> {
  await statement.prepare?.(db, ctx);
  const reps = statement.reps ?? REPS;
  const ms: number[] = [];
  const wal = await walPosition(db);
  for (let i = 0; i < reps; i++) {
    const input = (await statement.input?.(db, ctx, i)) ?? '';
    const start = performance.now();
    await statement.run(db, ctx, input);
    ms.push(performance.now() - start);
  }
  ms.sort((a, b) => a - b);
  const at = (q: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]! * 100) / 100;
  return { median: at(0.5), p95: at(0.95), walBytes: Math.round((await walSince(db, wal)) / reps) };
}

/**
 * A plan's shape: the nodes that ran (with their index), one line; a month's partition named `_pYYYYMM`, and
 * the same node on N months once, `×N`.
 */
function shape(plan: string): string {
  const nodes = plan
    .split('\n')
    .filter((line) => !line.startsWith('--') && !line.includes('(never executed)') && /^\s*(->\s*)?[A-Z][A-Za-z ]+( {2}|\(| on | using )/.test(line))
    .map((line) =>
      line
        .replace(/^\s*(->\s*)?/, '')
        .replace(/\s+\(cost.*$/, '')
        .replace(/\s+\(actual.*$/, ''),
    )
    .filter(
      (line) =>
        !/^(Planning|Execution|Buffers|Sort Key|Group Key|Filter|Index Cond|Recheck|Heap Blocks|Rows Removed|Output|Hash Cond|Join Filter|Sort Method|Worker|Batches|Subplans Removed)/.test(
          line,
        ),
    )
    .map((line) => line.replace(/_p\d{6}\b/g, '_pYYYYMM').replace(/ (\w+)_\d+$/, ' $1'));
  const folded: string[] = [];
  let repeats = 1;
  nodes.forEach((node, i) => {
    if (node === nodes[i + 1]) return void (repeats += 1);
    folded.push(repeats > 1 ? `${node} ×${repeats}` : node);
    repeats = 1;
  });
  return folded.join(' › ');
}

const figure = (plans: string[], what: RegExp) =>
  plans
    .map((p) => what.exec(p)?.[1])
    .filter((v): v is string => v !== undefined)
    .join(' + ');

interface Slice {
  sales: number;
  seconds: number;
  rows: number;
  walBytes: number;
}

/** Every table's bytes (its partitions', indexes and TOAST included) and rows, as the catalog counts them. */
async function tableSizes(db: Knex): Promise<{ table: string; bytes: number; rows: number }[]> {
  const sizes = [];
  for (const table of SALE_TABLES) {
    const { rows } = (await db.raw(
      // pg_partition_tree has no rows for a table that is not partitioned.
      `WITH leaves AS (SELECT relid FROM pg_partition_tree(?::regclass) WHERE isleaf)
       SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes, coalesce(sum(greatest(c.reltuples, 0)), 0)::bigint AS rows
       FROM pg_class c WHERE c.oid IN (SELECT relid FROM leaves) OR (c.oid = ?::regclass AND NOT EXISTS (SELECT 1 FROM leaves))`,
      [table, table],
    )) as { rows: { bytes: string; rows: string }[] };
    sizes.push({ table, bytes: Number(rows[0]!.bytes), rows: Number(rows[0]!.rows) });
  }
  return sizes;
}

const walPosition = async (db: Knex) => one(db, 'SELECT pg_current_wal_insert_lsn()::text AS v');
const walSince = async (db: Knex, from: string) => Number(await one(db, `SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '${from}')::bigint AS v`));
const rowCount = async (db: Knex) => (await tableSizes(db)).reduce((sum, t) => sum + t.rows, 0);
const mb = (bytes: number) => `${(bytes / 1048576).toLocaleString('en', { maximumFractionDigits: 0 })} MB`;

/** A new database: the schema, the merchants, the row functions and the partitions of a year of history. */
async function freshContext(db: Knex, producers: Producers): Promise<Context> {
  await db.raw('DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;');
  await db.migrate.latest();
  const base = new Date(Math.floor(Date.now() / 1000) * 1000);
  const accounts = [];
  for (let m = 0; m < MERCHANTS; m++) accounts.push(await bootstrapAccount(db, loadConfig(), `bench-data-${m}`));
  const merchants = accounts.map((a) => a.merchantId);
  const accountIds = [];
  for (const merchantId of merchants) accountIds.push(await one(db, `SELECT account_id AS v FROM merchants WHERE id = '${merchantId}'`));
  await installRowFunctions(db, base, SIZES.at(-1)!, merchants, accountIds);
  await partitionHistory(db, base);
  const closedPeriodEnd = globalPeriod(new Date(base.getTime() - 40 * DAY_S * 1000), '04').end;
  await db.raw(`INSERT INTO invoices (id, merchant_id, status, folio, customer, document) VALUES ('${HISTORY_GLOBAL}', ?, 'ACTIVE', 0, '{}', '{}')`, [merchants[0]!]);
  return { merchantId: merchants[0]!, merchants, base, producers, closedPeriodEnd, rows: 0 };
}

/** A kept run's database, as freshContext made it (its row functions name its merchants and its instant). */
async function reusedContext(db: Knex, producers: Producers): Promise<Context> {
  const merchants = (
    (await db.raw(`SELECT DISTINCT bench_merchant(n) AS id FROM generate_series(${FIRST_MERCHANT_END + 1}, ${FIRST_MERCHANT_END + MERCHANTS}) n`)) as { rows: { id: string }[] }
  ).rows.map((r) => r.id);
  const base = new Date(await one(db, `SELECT (bench_created(${CURRENT}) + interval '60 seconds')::text AS v`));
  const closedPeriodEnd = globalPeriod(new Date(base.getTime() - 40 * DAY_S * 1000), '04').end;
  return { merchantId: await one(db, 'SELECT bench_merchant(1) AS v'), merchants, base, producers, closedPeriodEnd, rows: SIZES.at(-1)! };
}

async function main(): Promise<void> {
  await ensureDatabase(DATABASE_URL);
  const db = knexFactory(knexConfig(DATABASE_URL));
  const redis = new Redis(redisOptions('blocking', loadConfig().redisUrl));
  const producers = await createProducers(redis, loadConfig(), QUEUE_PREFIX);
  // BENCH_DATA_REUSE=1: the statements again on a database a kept run (BENCH_DATA_KEEP=1, same BENCH_DATA_ROWS) wrote.
  const reuse = process.env.BENCH_DATA_REUSE === '1';
  const keep = reuse || process.env.BENCH_DATA_KEEP === '1';
  const report: string[] = [];
  try {
    const ctx = reuse ? await reusedContext(db, producers) : await freshContext(db, producers);
    const results: { size: number; seedS: number; slices: Slice[]; sizes: { table: string; bytes: number; rows: number }[]; timings: Timing[]; plans: string[][] }[] = [];
    for (const size of reuse ? SIZES.slice(-1) : SIZES) {
      const start = performance.now();
      const slices: Slice[] = [];
      // In slices, so one statement's memory and WAL stay bounded; each slice's rate is the ingest figure.
      for (let from = ctx.rows; from < size; from += 1_000_000) {
        const to = Math.min(size, from + 1_000_000);
        const [wal, rowsBefore, sliceStart] = [await walPosition(db), await rowCount(db), performance.now()];
        await seed(db, ctx.base, from, to, ctx.closedPeriodEnd);
        const seconds = (performance.now() - sliceStart) / 1000;
        await db.raw(`ANALYZE ${SALE_TABLES.join(', ')}`);
        slices.push({ sales: to - from, seconds, rows: (await rowCount(db)) - rowsBefore, walBytes: await walSince(db, wal) });
        console.error(`  sales ${from}–${to}: ${Math.round(seconds)} s, ${Math.round(slices.at(-1)!.rows / seconds)} rows/s`);
      }
      await db.raw(`VACUUM ANALYZE ${SALE_TABLES.join(', ')}`);
      ctx.rows = size;
      const seedS = Math.round((performance.now() - start) / 1000);
      const sizes = await tableSizes(db);
      console.error(`${size} sales written in ${seedS} s (${mb(sizes.reduce((sum, t) => sum + t.bytes, 0))})`);
      const timings: Timing[] = [];
      const plans: string[][] = [];
      for (const statement of STATEMENTS) {
        timings.push(await time(db, statement, ctx));
        plans.push(await plansOf(db, statement, ctx));
        console.error(`  ${statement.name}: ${JSON.stringify(timings.at(-1))}`);
      }
      results.push({ size, seedS, slices, sizes, timings, plans });
    }
    report.push(
      `| statement | ${results.map((r) => `${r.size.toLocaleString('en')} rows: median / p95 ms`).join(' | ')} | buffers at ${results.at(-1)!.size.toLocaleString('en')} | planning ms at ${results.at(-1)!.size.toLocaleString('en')} | WAL bytes a run at ${results.at(-1)!.size.toLocaleString('en')} | plan at ${results.at(-1)!.size.toLocaleString('en')} |`,
    );
    report.push(`|---|${results.map(() => '---|').join('')}---|---|---:|---|`);
    STATEMENTS.forEach((statement, s) => {
      const last = results.at(-1)!.plans[s]!;
      report.push(
        `| ${statement.name} | ${results.map((r) => `${r.timings[s]!.median} / ${r.timings[s]!.p95}`).join(' | ')} | ${figure(last, /^\s*Buffers: (shared [^\n]*)/m) || '—'} | ${figure(last, /^Planning Time: ([\d.]+) ms/m) || '—'} | ${results.at(-1)!.timings[s]!.walBytes.toLocaleString('en')} | ${last.map(shape).join(' ; ')} |`,
      );
    });
    const last = results.at(-1)!;
    report.push(
      '',
      `| table | ${results.map((r) => `bytes at ${r.size.toLocaleString('en')} sales`).join(' | ')} | rows at ${last.size.toLocaleString('en')} | bytes per sale at ${last.size.toLocaleString('en')} |`,
    );
    report.push(`|---|${results.map(() => '---:|').join('')}---:|---:|`);
    last.sizes.forEach(({ table, bytes, rows }, t) =>
      report.push(
        `| \`${table}\` | ${results.map((r) => mb(r.sizes[t]!.bytes)).join(' | ')} | ${rows.toLocaleString('en')} | ${Math.round(bytes / last.size).toLocaleString('en')} |`,
      ),
    );
    const total = (r: (typeof results)[number]) => r.sizes.reduce((sum, t) => sum + t.bytes, 0);
    report.push(`| all | ${results.map((r) => mb(total(r))).join(' | ')} | | ${Math.round(total(last) / last.size).toLocaleString('en')} |`);
    report.push('', '| sales written (ingest, one slice per INSERT … SELECT round) | seconds | rows/s (every table) | sales/s | WAL bytes per sale |', '|---|---:|---:|---:|---:|');
    let written = 0;
    for (const slice of results.flatMap((r) => r.slices)) {
      report.push(
        `| ${written.toLocaleString('en')}–${(written + slice.sales).toLocaleString('en')} | ${Math.round(slice.seconds)} | ${Math.round(slice.rows / slice.seconds).toLocaleString('en')} | ${Math.round(slice.sales / slice.seconds).toLocaleString('en')} | ${Math.round(slice.walBytes / slice.sales).toLocaleString('en')} |`,
      );
      written += slice.sales;
    }
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
