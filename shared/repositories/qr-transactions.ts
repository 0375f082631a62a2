import { qrTransitions } from '../platform/metrics/registry.js';
import { runPrepared, type Db, type PreparedStatement } from '../platform/db.js';
import { CLAIM_KEY_SQL } from '../platform/idempotency/idempotency-store.js';
import { ID_PREFIX, timedKeyInstant } from '../platform/ids.js';
import { firstInPartitions, keyInstant, onKeyInstant, partitionOf, perPartition, salePartitionsOf, type SalePartition } from './sale-partition.js';
import type { KeyMode } from './api-keys.js';
import type { GlobalInfo, RelatedCfdis, TaxFactor, TaxType } from '../qr/qr-request.js';
import { qrEventData } from '../webhooks/event-data.js';
import { emitEvents } from '../webhooks/emit-event.js';

import { OPEN_QR_STATUSES, type QrStatus } from '../domain/qr-lifecycle.js';

export type { QrStatus };

/** A QR transaction as stored; numeric columns are exact decimal strings. */
export interface QrTransactionRow {
  id: string;
  merchant_id: string;
  mode: KeyMode;
  store_uid: string;
  sale_id: string;
  idempotency_key: string;
  operation: string;
  amount: string;
  subtotal: string;
  currency: string;
  exchange_rate: string | null;
  sat_payment_method: string;
  sat_payment_form: string;
  type_of_receipt: string;
  export_code: string;
  status: QrStatus;
  related_cfdis: RelatedCfdis | null;
  global_info: GlobalInfo | null;
  metadata: Record<string, string> | null;
  token: string;
  /** The ticket's typed alternative to the QR (null for transactions made before short codes). */
  short_code: string | null;
  time_zone: string;
  issued_local: string;
  /** Null once the QR is finished (INVOICED, EXPIRED, CANCELLED): rendered again from the token on read. */
  qr_png: Buffer | null;
  created_at: Date;
  updated_at: Date;
  scanned_at: Date | null;
  expires_at: Date;
  confirmed_at: Date | null;
  /** The offline key that signed the ticket this sale caught up, and the ticket's moment of sale (issue #33). */
  offline_key_id: string | null;
  sold_at: Date | null;
  /** The global-invoice period the sale belongs to (null for sales made before global invoices). */
  global_periodicity: string | null;
  global_period_end: Date | null;
  /** What the POS asked for, when the period's close cut the expiry short. */
  requested_expires_at: Date | null;
  /** The global invoice that reported this unclaimed sale. */
  global_invoice_id: string | null;
}

export interface QrConceptRow {
  transaction_id: string;
  position: number;
  sku: string | null;
  description: string;
  amount: string;
  quantity: string;
  discount: string | null;
  unit_price: string;
  sat_unit_key: string;
  sat_product_service_key: string;
  sat_tax_object_key: string;
}

export interface QrConceptTaxRow {
  transaction_id: string;
  concept_position: number;
  position: number;
  type: TaxType;
  tax: string;
  factor: TaxFactor;
  rate: string | null;
  taxable_base: string;
  amount: string | null;
}

/** A transaction with its concepts and their taxes, and the names the response shows. */
export interface QrTransactionRecord {
  transaction: QrTransactionRow;
  concepts: QrConceptRow[];
  taxes: QrConceptTaxRow[];
  storeName: string;
  issuerRfc: string;
  issuerName: string;
}

// jsonb columns go in as JSON text so arrays are not mistaken for Postgres arrays.
function jsonOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

const TRANSACTION_COLUMNS = [
  'id',
  'merchant_id',
  'mode',
  'store_uid',
  'sale_id',
  'idempotency_key',
  'operation',
  'amount',
  'subtotal',
  'currency',
  'exchange_rate',
  'sat_payment_method',
  'sat_payment_form',
  'type_of_receipt',
  'export_code',
  'status',
  'related_cfdis',
  'global_info',
  'metadata',
  'token',
  'short_code',
  'time_zone',
  'issued_local',
  'qr_png',
  'created_at',
  'updated_at',
  'expires_at',
  'global_periodicity',
  'global_period_end',
  'requested_expires_at',
  'offline_key_id',
  'sold_at',
] as const satisfies readonly (keyof QrTransactionRow)[];

const JSONB_COLUMNS = new Set<string>(['related_cfdis', 'global_info', 'metadata']);
const FIRST = 6; // $1..$5 claim the idempotency key
const placeholders = TRANSACTION_COLUMNS.map((c, i) => `$${FIRST + i}${JSONB_COLUMNS.has(c) ? '::jsonb' : ''}`).join(', ');
const CONCEPTS = `$${FIRST + TRANSACTION_COLUMNS.length}`;
const TAXES = `$${FIRST + TRANSACTION_COLUMNS.length + 1}`;

/**
 * Claims the idempotency key and writes the transaction, its keys unique across months (qr_sale_keys), its
 * concepts and their taxes in one statement (one round trip, atomic); qr_live_sales gets its row from the
 * sale's trigger. When the key is taken, nothing is written; a concurrent
 * holder of the key makes the statement wait until it commits or rolls back.
 */
const RECORD_QR: PreparedStatement = {
  name: 'qr_record_v6',
  text: `WITH claim AS (${CLAIM_KEY_SQL}),
  t AS (
    INSERT INTO qr_transactions (${TRANSACTION_COLUMNS.join(', ')})
    SELECT ${placeholders} FROM claim RETURNING id, created_at, merchant_id, idempotency_key, short_code, offline_key_id, sale_id
  ),
  k AS (
    INSERT INTO qr_sale_keys (transaction_id, transaction_created_at, merchant_id, idempotency_key, short_code, offline_key_id, offline_sale_id)
    SELECT id, created_at, merchant_id, idempotency_key, short_code, offline_key_id, CASE WHEN offline_key_id IS NOT NULL THEN sale_id END FROM t
  ),
  c AS (
    INSERT INTO qr_concepts (transaction_id, transaction_created_at, position, sku, description, amount, quantity, discount, unit_price,
      sat_unit_key, sat_product_service_key, sat_tax_object_key)
    SELECT t.id, t.created_at, x.position, x.sku, x.description, x.amount, x.quantity, x.discount, x.unit_price,
      x.sat_unit_key, x.sat_product_service_key, x.sat_tax_object_key
    FROM t, jsonb_to_recordset(${CONCEPTS}::jsonb) AS x(position int, sku text, description text, amount numeric,
      quantity numeric, discount numeric, unit_price numeric, sat_unit_key text, sat_product_service_key text, sat_tax_object_key text)
  ),
  ct AS (
    INSERT INTO qr_concept_taxes (transaction_id, transaction_created_at, concept_position, position, type, tax, factor, rate, taxable_base, amount)
    SELECT t.id, t.created_at, x.concept_position, x.position, x.type, x.tax, x.factor, x.rate, x.taxable_base, x.amount
    FROM t, jsonb_to_recordset(${TAXES}::jsonb) AS x(concept_position int, position int, type text, tax text, factor text,
      rate text, taxable_base numeric, amount numeric)
  )
  SELECT count(*)::int AS created FROM t`,
};

/*
 * The rules unique across the sales' months are constraints of two narrow unpartitioned tables (migration
 * 20261128210000): qr_sale_keys (written with the sale) and qr_live_sales (kept by the sale's status trigger).
 * They carry the names the sales' own unique indexes had, which the API's conflict handling reads.
 */
/** A sale keeps its key for good, its idempotency record only IDEMPOTENCY_RETENTION_DAYS: a key presented again after its record left meets this. */
export const SALE_KEY_INDEX = 'qr_transactions_merchant_id_idempotency_key_unique';
/** One sale per short code. */
export const SHORT_CODE_INDEX = 'qr_transactions_short_code_key';
/** An offline ticket (key, POS sale id) is bound to one sale (issue #33). */
export const OFFLINE_TICKET_INDEX = 'qr_transactions_offline_ticket_key';
/** One open or invoiced QR per sale_id of a merchant and mode (issue #39). */
export const SALE_QR_INDEX = 'qr_transactions_one_per_sale';

/**
 * The sale a key names, as a FROM item `t`: its id (`tra_` then the key) or its token, `param` the statement's
 * parameter. The key carries its instant, which is the sale's created_at, so the first branch reads one month's
 * partition (pruned before it runs); the old table's keys carry none, so only when that finds nothing the
 * legacy partition is read (`LIMIT 1` stops the union at the first row: a new key never reaches it).
 */
export function saleByKey(column: 'id' | 'token', param: string): string {
  return `((SELECT * FROM qr_transactions WHERE ${column} = ${param} AND created_at = ${keyInstant(column, param)})
    UNION ALL (SELECT * FROM qr_transactions WHERE ${column} = ${param} AND created_at < qr_legacy_before()) LIMIT 1) t`;
}

/** The months a key names, as a condition on `column`: the key's instant (saleByKey's), or the legacy partition. */
export function keyMonths(keyColumn: 'id' | 'token', param: string): (column: string) => string {
  return (column) => `(${column} = ${keyInstant(keyColumn, param)} OR ${column} < qr_legacy_before())`;
}

/** The same for a by-id UPDATE (no LIMIT there): the id's month and the legacy partition, two probes. */
export const BY_ID_PARTITIONS = keyMonths('id', '?')('created_at');

/**
 * Columns of the sale a side table's row names (`transaction_id`, `transaction_created_at`), in two statements:
 * the side row, then the sale by its id and instant as parameters, which the planner prunes to that one
 * month. One statement joining the two would plan every month's partition with each of its indexes (the join's
 * instant is known only at run time): 1.3–1.8 ms of planning at 17 months, more with five years of them
 * (issue #41, docs/data-growth.md), against two round trips of a few hundredths of a millisecond.
 */
async function saleOfSideRow<T>(db: Db, side: string, where: string, bindings: readonly string[], columns: string): Promise<T | undefined> {
  const { rows: keys } = await db.raw<{ rows: { transaction_id: string; transaction_created_at: Date }[] }>(
    `SELECT transaction_id, transaction_created_at FROM ${side} WHERE ${where}`,
    bindings,
  );
  const key = keys[0];
  if (!key) return undefined;
  // The instant's millisecond, not the instant: a Date holds milliseconds, and the old table's rows (the
  // legacy partition) have microseconds.
  const at = key.transaction_created_at;
  const { rows } = await db.raw<{ rows: T[] }>(`SELECT ${columns} FROM qr_transactions WHERE id = ? AND created_at >= ? AND created_at < ?`, [
    key.transaction_id,
    at,
    new Date(at.getTime() + 1),
  ]);
  return rows[0];
}

/** The QR that holds a sale_id (open or invoiced: SALE_QR_INDEX), if any. */
export async function qrHoldingSale(
  db: Db,
  merchantId: string,
  mode: string,
  saleId: string,
): Promise<{ id: string; status: string; created_at: Date; expires_at: Date } | undefined> {
  return saleOfSideRow(db, 'qr_live_sales', 'merchant_id = ? AND mode = ? AND sale_id = ?', [merchantId, mode, saleId], 'id, status, created_at, expires_at');
}

/** The signed-link token of the transaction a short code names, in any state; undefined when none does. */
export async function tokenForShortCode(db: Db, shortCode: string): Promise<string | undefined> {
  return (await saleOfSideRow<{ token: string }>(db, 'qr_sale_keys', 'short_code = ?', [shortCode], 'token'))?.token;
}

/** The signed-link token of the sale that caught up an offline ticket (key, POS sale id); undefined before it arrived. */
export async function tokenForOfflineTicket(db: Db, offlineKeyId: string, saleId: string): Promise<string | undefined> {
  return (await saleOfSideRow<{ token: string }>(db, 'qr_sale_keys', 'offline_key_id = ? AND offline_sale_id = ?', [offlineKeyId, saleId], 'token'))?.token;
}

export type NewQrTransaction = Omit<QrTransactionRecord, 'storeName' | 'issuerRfc' | 'issuerName'>;

/** Writes a new transaction under its idempotency key; false (and nothing written) when the key was taken. */
export async function recordQrTransaction(db: Db, record: NewQrTransaction, claim: { scope: string; fingerprint: string }): Promise<boolean> {
  const t = record.transaction;
  const values = [
    t.merchant_id,
    claim.scope,
    t.idempotency_key,
    claim.fingerprint,
    t.id,
    ...TRANSACTION_COLUMNS.map((c) => (JSONB_COLUMNS.has(c) ? jsonOrNull(t[c]) : t[c])),
    JSON.stringify(record.concepts.map(({ transaction_id: _, ...c }) => c)),
    JSON.stringify(record.taxes.map(({ transaction_id: _, ...x }) => x)),
  ];
  const [row] = await runPrepared<{ created: number }>(db, RECORD_QR, values);
  return row?.created === 1;
}

/**
 * A transaction's concepts and taxes as two JSON columns (`t` is the transaction, its created_at their
 * partition), for one-statement reads. `months(column)`: a condition on the lines' instant column made of the
 * statement's parameters only (the key's instant, or the legacy partition), so the lines are pruned to those
 * partitions before the statement runs (when planned, or when a generic plan starts); `t.created_at` alone is
 * known only at run time, and every month's partition of both tables would be planned and opened (issue #41).
 * Or the one partition of the sale's (shared/repositories/sale-partition.ts), read alone.
 */
export function conceptsAndTaxesJson(months: ((column: string) => string) | { partition: SalePartition }): string {
  const source = (table: 'qr_concepts' | 'qr_concept_taxes', alias: string) =>
    typeof months === 'function'
      ? `${table} ${alias} WHERE ${alias}.transaction_id = t.id AND ${alias}.transaction_created_at = t.created_at AND ${months(`${alias}.transaction_created_at`)}`
      : `${partitionOf(table, months.partition)} ${alias} WHERE ${alias}.transaction_id = t.id AND ${alias}.transaction_created_at = t.created_at`;
  return `(SELECT coalesce(json_agg(json_build_object(
          'transaction_id', c.transaction_id, 'position', c.position, 'sku', c.sku, 'description', c.description,
          'amount', c.amount::text, 'quantity', c.quantity::text, 'discount', c.discount::text, 'unit_price', c.unit_price::text,
          'sat_unit_key', c.sat_unit_key, 'sat_product_service_key', c.sat_product_service_key, 'sat_tax_object_key', c.sat_tax_object_key
        ) ORDER BY c.position), '[]'::json) FROM ${source('qr_concepts', 'c')}) AS concepts_json,
      (SELECT coalesce(json_agg(json_build_object(
          'transaction_id', x.transaction_id, 'concept_position', x.concept_position, 'position', x.position, 'type', x.type,
          'tax', x.tax, 'factor', x.factor, 'rate', x.rate, 'taxable_base', x.taxable_base::text, 'amount', x.amount::text
        ) ORDER BY x.concept_position, x.position), '[]'::json) FROM ${source('qr_concept_taxes', 'x')}) AS taxes_json`;
}

/**
 * The months a list of sales' ids names, as a condition on `column`: the instants the ids carry (`param`, a
 * timestamptz[] made by instantsOfIds), or the legacy partition. The planner prunes to them: a statement that
 * names its sales by id alone plans and probes every month's partition (issue #41).
 */
export function idsMonths(column: string, param: string): string {
  return `(${column} = ANY(${param}::timestamptz[]) OR ${column} < qr_legacy_before())`;
}

/** The instants sales' ids carry, for idsMonths' parameter. */
export function instantsOfIds(ids: readonly string[]): Date[] {
  return ids.map((id) => timedKeyInstant(id.slice(ID_PREFIX.transaction.length))).filter((at): at is Date => at !== undefined);
}

/** The two columns of conceptsAndTaxesJson as a row holds them. */
export interface ConceptsAndTaxesJson {
  concepts_json: QrConceptRow[];
  taxes_json: QrConceptTaxRow[];
}

/**
 * The columns a stored QR's view shows (api/contract/qrs/qr-transaction-view.ts), and time_zone (a replay's
 * check): GET /v1/qrs/{qrId} reads these and no more, each column costing a description and a parse per row.
 */
export const QR_VIEW_COLUMNS = [
  'id',
  'store_uid',
  'sale_id',
  'idempotency_key',
  'operation',
  'amount',
  'subtotal',
  'currency',
  'exchange_rate',
  'sat_payment_method',
  'sat_payment_form',
  'type_of_receipt',
  'export_code',
  'status',
  'related_cfdis',
  'global_info',
  'metadata',
  'token',
  'short_code',
  'time_zone',
  'qr_png',
  'created_at',
  'updated_at',
  'scanned_at',
  'expires_at',
  'global_periodicity',
  'global_period_end',
  'requested_expires_at',
  'global_invoice_id',
  'sold_at',
] as const satisfies readonly (keyof QrTransactionRow)[];

export type QrViewRow = Pick<QrTransactionRow, (typeof QR_VIEW_COLUMNS)[number]>;

/** A stored transaction as its view needs it, with its concepts and their taxes. */
export interface StoredQr {
  transaction: QrViewRow;
  concepts: QrConceptRow[];
  taxes: QrConceptTaxRow[];
}

/**
 * GET /v1/qrs/{qrId} and every replay read this: one prepared statement per partition, the concepts and taxes
 * folded in as JSON (numerics as text, so they stay exact decimal strings like the columns read directly), on
 * the month's partition the id names, then the legacy one (sale-partition.ts): no other month is locked. No
 * join: the store and issuer names come from the API key's principal, which names this same merchant.
 */
export const findQrIn = perPartition('find_qr_transaction_v5', (partition) => qrViewRead(partition, true));

/** The read of one sale's view on one partition, with its concepts and taxes or without. */
function qrViewRead(partition: SalePartition, lines: boolean): string {
  return `SELECT ${QR_VIEW_COLUMNS.map((c) => `t.${c}`).join(', ')}${lines ? `,\n      ${conceptsAndTaxesJson({ partition })}` : ''}
    FROM ${partitionOf('qr_transactions', partition)} t
    WHERE t.id = $1${onKeyInstant('id', partition)} AND t.merchant_id = $2 AND t.mode = $3`;
}

/** One transaction of one merchant in one mode, or undefined (another merchant's is as unknown as a missing one). */
export async function findQrTransaction(db: Db, merchantId: string, mode: KeyMode, qrId: string): Promise<StoredQr | undefined> {
  const row = await firstInPartitions<QrViewRow & ConceptsAndTaxesJson>(db, salePartitionsOf('id', qrId), findQrIn, [qrId, merchantId, mode]);
  if (!row) return undefined;
  const { concepts_json, taxes_json, ...transaction } = row;
  return { transaction, concepts: concepts_json, taxes: taxes_json };
}

/**
 * findQrIn without the concepts and taxes: for a reader that keeps what follows from them (they are never
 * changed after the insert; api/qrs/stored-qr.ts). Their two JSON subqueries were ~40 % of the read's
 * PostgreSQL CPU (0.089 → 0.054 ms a run).
 */
export const findQrHeadIn = perPartition('find_qr_head_v1', (partition) => qrViewRead(partition, false));

/** A transaction's own row as its view shows it, without its concepts and taxes; same scope as findQrTransaction. */
export async function findQrHead(db: Db, merchantId: string, mode: KeyMode, qrId: string): Promise<QrViewRow | undefined> {
  return firstInPartitions<QrViewRow>(db, salePartitionsOf('id', qrId), findQrHeadIn, [qrId, merchantId, mode]);
}

/** What the public image URL serves: the stored PNG (null once the QR is finished), the token to render it again, the expiry. */
export async function qrImageOf(db: Db, qrId: string): Promise<{ qr_png: Buffer | null; token: string; expires_at: Date } | undefined> {
  const { rows } = await db.raw<{ rows: { qr_png: Buffer | null; token: string; expires_at: Date }[] }>(`SELECT t.qr_png, t.token, t.expires_at FROM ${saleByKey('id', ':qrId')}`, {
    qrId,
  });
  return rows[0];
}

/** The epoch seconds in (from, to] in which some open QR falls due: the expiry buckets to schedule. */
export async function dueExpirySeconds(db: Db, from: Date, to: Date): Promise<number[]> {
  const rows = (await db('qr_transactions')
    .whereIn('status', OPEN_QR_STATUSES)
    .where('expires_at', '>', from)
    .where('expires_at', '<=', to)
    .distinct(db.raw('ceil(extract(epoch from expires_at))::bigint as second'))) as { second: string }[];
  return rows.map((r) => Number(r.second));
}

/**
 * Moves open QRs whose expiry has passed to EXPIRED: the expiry rule of shared/domain/qr-lifecycle.ts
 * (isExpired) in SQL. Invoiced or cancelled QRs are never touched.
 *
 * The plan is pinned, not left to the estimates (issue #41, test/workers/expire-due-plan.test.ts): the
 * planner multiplies "open" by "expiry past" and expects many more due rows than there are, so a plain
 * `LIMIT` made it scan the table (or bitmap-read every due row) and join the ids back by a sequential scan.
 * `ORDER BY expires_at` makes the batch a walk of the open-expiry index that stops at its LIMIT (the most
 * overdue first), and `id = ANY(ARRAY(…))` makes the ids an array computed once and probed by primary key;
 * the batch's created_at range limits those probes to its months' partitions (pruned when the UPDATE runs).
 */
export async function expireQrTransactions(db: Db, options: { qrId?: string; limit?: number } = {}): Promise<string[]> {
  const one = options.qrId ? `AND id = :qrId AND ${BY_ID_PARTITIONS.replace('?', ':qrId')}` : '';
  return db.transaction(async (trx) => {
    const { rows } = await trx.raw<{ rows: { id: string; merchant_id: string; sale_id: string; store_uid: string; status: string }[] }>(
      `WITH due AS MATERIALIZED (
         SELECT id, created_at FROM qr_transactions
         -- confirmed_at: a QR whose confirmation is being stamped does not expire under the buyer (see invoices migration).
         WHERE status IN (${OPEN_QR_STATUSES.map((status) => `'${status}'`).join(', ')}) AND expires_at <= now() AND confirmed_at IS NULL ${one}
         ORDER BY expires_at LIMIT :limit FOR UPDATE SKIP LOCKED)
       UPDATE qr_transactions SET status = 'EXPIRED', expired_at = now(), updated_at = now()
       WHERE id = ANY(ARRAY(SELECT id FROM due))
         AND created_at >= (SELECT min(created_at) FROM due) AND created_at <= (SELECT max(created_at) FROM due)
       RETURNING id, merchant_id, sale_id, store_uid, status`,
      { limit: options.limit ?? 1000, ...(options.qrId ? { qrId: options.qrId } : {}) },
    );
    await emitEvents(
      trx,
      'qr.expired',
      rows.map((r) => ({ merchantId: r.merchant_id, data: qrEventData(r) })),
    );
    return rows.map((r) => r.id);
  });
}

/** The buyer's first look: PENDING becomes SCANNED (once), announced to the merchant. Undefined when it was not PENDING. */
export async function markScanned(db: Db, qrId: string): Promise<{ status: 'SCANNED'; scanned_at: Date } | undefined> {
  const marked = await db.transaction(async (trx) => {
    const [scanned] = (await trx('qr_transactions')
      .where({ id: qrId, status: 'PENDING' })
      .whereRaw(BY_ID_PARTITIONS, [qrId])
      .update({ status: 'SCANNED', scanned_at: trx.fn.now(), updated_at: trx.fn.now() }, ['status', 'scanned_at', 'merchant_id', 'sale_id', 'store_uid', 'id'])) as {
      status: 'SCANNED';
      scanned_at: Date;
      merchant_id: string;
      sale_id: string;
      store_uid: string;
      id: string;
    }[];
    if (!scanned) return undefined;
    await emitEvents(trx, 'qr.scanned', [{ merchantId: scanned.merchant_id, data: qrEventData(scanned) }]);
    return { status: scanned.status, scanned_at: scanned.scanned_at };
  });
  // Counted where scanned_at is written (here and in recordConfirmation), so /metrics and the status page agree.
  if (marked) qrTransitions.inc({ status: 'SCANNED' });
  return marked;
}
