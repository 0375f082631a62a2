/**
 * The merchant's books (issue #32): its QR transactions and every CFDI it issued, newest first, a page at a
 * time by keyset (shared/platform/keyset-cursor.ts). Each merchant in scope is one backward range of
 * (merchant_id, created_at, id) (migrations/20261127120000_books_indexes.ts), read LIMIT n+1 in a LATERAL
 * join, so an account's several merchants merge without sorting their rows: a page reads at most
 * (merchants × (n+1)) index entries plus what the filters skip, at any table size.
 */
import type { Knex } from 'knex';
import type { Db } from '../platform/db.js';
import type { Keyset } from '../platform/keyset-cursor.js';
import { cfdiOfMode } from './cfdi-mode.js';

/** Whose rows: the merchants (an API key's one, or an account's), and for an API key its mode. */
export interface BooksScope {
  merchantIds: readonly string[];
  /** An API key reads the QRs and CFDIs of its own mode (development or production). */
  mode?: string;
}

/** Created from (inclusive) and to (exclusive), instants already resolved from the merchant's dates. */
export interface CreatedRange {
  from?: Date;
  to?: Date;
}

export interface QrFilters extends CreatedRange {
  statuses?: readonly string[];
  storeUid?: string;
  saleId?: string;
  /** The sales a global invoice reported (the export gives a global invoice's count, not its thousands of sales). */
  globalInvoiceUuid?: string;
}

export interface InvoiceFilters extends CreatedRange {
  statuses?: readonly string[];
  cfdiType?: string;
  receptorRfc?: string;
  storeUid?: string;
  saleId?: string;
  uuid?: string;
  series?: string;
  folio?: string;
}

export interface QrListRow {
  key: Keyset;
  id: string;
  merchant_id: string;
  mode: string;
  store_uid: string;
  sale_id: string;
  operation: string;
  status: string;
  amount: string;
  subtotal: string;
  currency: string;
  created_at: Date;
  expires_at: Date;
  scanned_at: Date | null;
  invoice_uuid: string | null;
  invoice_status: string | null;
  global_invoice_uuid: string | null;
  /** Offline sales: the moment of sale (issue #39). */
  sold_at: Date | null;
}

export interface InvoiceListRow {
  key: Keyset;
  id: string;
  merchant_id: string;
  cfdi_type: 'I' | 'E' | 'P';
  kind: 'invoice' | 'global_invoice' | 'credit_note' | 'payment_complement';
  status: string;
  uuid: string | null;
  series: string | null;
  folio: string;
  receptor_rfc: string;
  receptor_name: string;
  subtotal: string | null;
  discount: string | null;
  total: string | null;
  created_at: Date;
  stamped_at: Date | null;
  /** The QR sales a ticket invoice covers, in ticket order (empty for the other kinds). */
  sales: { qr_id: string; store_uid: string; sale_id: string }[];
  global_tickets: number | null;
}

/** What an export row adds to a list row: the document as sealed, its cancellation and every sale it covers. */
export interface InvoiceExportRow extends InvoiceListRow {
  sealed_xml: string | null;
  cancelled_at: Date | null;
  /** Ticket invoices: their tickets; a global invoice: every sale it reported. */
  sale_ids: string[];
  /** The zone the CFDI's Fecha is written in (its sale's, or its stored document's). */
  time_zone: string | null;
}

const KEY_AT = `to_char(x.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

interface Fragment {
  sql: string;
  bindings: Knex.Value[];
}

function where(conditions: (Fragment | undefined)[]): Fragment {
  const present = conditions.filter((c): c is Fragment => c !== undefined);
  return { sql: present.map((c) => `AND ${c.sql}`).join(' '), bindings: present.flatMap((c) => c.bindings) };
}

const when = <T>(value: T | undefined, sql: string, binding: (v: T) => Knex.Value[] = (v) => [v as Knex.Value]): Fragment | undefined =>
  value === undefined ? undefined : { sql, bindings: binding(value) };

function rangeAndAfter(filters: CreatedRange, after: Keyset | undefined): (Fragment | undefined)[] {
  return [when(filters.from, 'x.created_at >= ?'), when(filters.to, 'x.created_at < ?'), when(after, '(x.created_at, x.id) < (?::timestamptz, ?)', (k) => [k.at, k.id])];
}

/**
 * The merchants in scope, or the store named among them: a store is a merchant, and a sale names it by
 * either of its ids (`store_uid`: the merchant's id or its external id). Narrowing the merchants, not
 * filtering rows, finds a sale under either spelling and the store's credit notes and payment complements
 * (which cover no sale), and reads no other merchant's index range.
 */
function merchantsInScope(scope: BooksScope, storeUid: string | undefined): Fragment {
  const ids = [...scope.merchantIds];
  return storeUid === undefined
    ? { sql: 'SELECT unnest(?::text[]) AS id', bindings: [ids] }
    : { sql: 'SELECT s.id FROM merchants s WHERE s.id = ANY(?::text[]) AND (s.id = ? OR s.external_merchant_id = ?)', bindings: [ids, storeUid, storeUid] };
}

/**
 * The newest `limit` rows of `table` (aliased x) over every merchant in scope (or the store named), after
 * `after`: per merchant one index range (LATERAL … ORDER BY created_at DESC, id DESC LIMIT), merged by the
 * outer ORDER BY.
 */
async function newestFirst<R>(db: Db, table: string, columns: string, merchants: Fragment, filter: Fragment, limit: number): Promise<(R & { key_at: string })[]> {
  const result = await db.raw<{ rows: (R & { key_at: string })[] }>(
    `SELECT p.* FROM (${merchants.sql}) AS m(id)
     CROSS JOIN LATERAL (
       SELECT ${columns}, ${KEY_AT} AS key_at FROM ${table} x
       WHERE x.merchant_id = m.id ${filter.sql}
       ORDER BY x.created_at DESC, x.id DESC LIMIT ?
     ) p
     ORDER BY p.created_at DESC, p.id DESC LIMIT ?`,
    [...merchants.bindings, ...filter.bindings, limit, limit],
  );
  return result.rows;
}

/** A page of QR transactions (up to `limit` rows; ask one more than the page to learn whether another follows). */
export async function listQrs(db: Db, scope: BooksScope, filters: QrFilters, after: Keyset | undefined, limit: number): Promise<QrListRow[]> {
  const filter = where([
    when(scope.mode, 'x.mode = ?'),
    when(filters.statuses, 'x.status = ANY(?::text[])', (v) => [[...v]]),
    when(filters.saleId, 'x.sale_id = ?'),
    when(filters.globalInvoiceUuid, 'x.global_invoice_id = (SELECT g.id FROM invoices g WHERE g.uuid = ? AND g.merchant_id = x.merchant_id)', (v) => [v.toUpperCase()]),
    ...rangeAndAfter(filters, after),
  ]);
  type Row = Omit<QrListRow, 'key' | 'invoice_uuid' | 'invoice_status' | 'global_invoice_uuid'> & { global_invoice_id: string | null };
  const rows = await newestFirst<Row>(
    db,
    'qr_transactions',
    'x.id, x.merchant_id, x.mode, x.store_uid, x.sale_id, x.operation, x.status, x.amount, x.subtotal, x.currency, x.created_at, x.expires_at, x.scanned_at, x.global_invoice_id, x.sold_at',
    merchantsInScope(scope, filters.storeUid),
    filter,
    limit,
  );
  if (rows.length === 0) return [];
  // The live invoice of each QR of the page (a QR may be a further ticket of an invoice) and its global invoice.
  const ids = rows.map((r) => r.id);
  const globalIds = rows.flatMap((r) => (r.global_invoice_id ? [r.global_invoice_id] : []));
  const [invoices, globals] = await Promise.all([
    db('invoice_tickets as t')
      .join('invoices as i', 'i.id', 't.invoice_id')
      .whereRaw('t.transaction_id = ANY(?::text[])', [ids])
      .whereNot('i.status', 'REFUSED')
      .select('t.transaction_id', 'i.uuid', 'i.status') as Promise<{ transaction_id: string; uuid: string | null; status: string }[]>,
    globalIds.length === 0
      ? Promise.resolve([])
      : (db('invoices').whereRaw('id = ANY(?::text[])', [globalIds]).select('id', 'uuid') as Promise<{ id: string; uuid: string | null }[]>),
  ]);
  const invoiceOf = new Map(invoices.map((i) => [i.transaction_id, i]));
  const globalOf = new Map(globals.map((g) => [g.id, g.uuid]));
  return rows.map(({ key_at, global_invoice_id, ...r }) => ({
    ...r,
    key: { at: key_at, id: r.id },
    invoice_uuid: invoiceOf.get(r.id)?.uuid ?? null,
    invoice_status: invoiceOf.get(r.id)?.status ?? null,
    global_invoice_uuid: global_invoice_id ? (globalOf.get(global_invoice_id) ?? null) : null,
  }));
}

/** A ticket's sale, by its id and its instant: one month's partition of the sales read (issue #41). */
const TICKET_SALE = 'JOIN qr_transactions q ON q.id = it.transaction_id AND q.created_at = it.transaction_created_at';

/** The sales a CFDI covers match a sale filter: a ticket invoice's tickets, a global invoice's reported sales. */
function coveredSale(value: string | undefined): Fragment | undefined {
  return when(
    value,
    `(EXISTS (SELECT 1 FROM invoice_tickets it ${TICKET_SALE} WHERE it.invoice_id = x.id AND q.sale_id = ?)
      OR EXISTS (SELECT 1 FROM qr_transactions q WHERE q.global_invoice_id = x.id AND q.merchant_id = x.merchant_id AND q.sale_id = ?))`,
    (v) => [v, v],
  );
}

function invoiceFilter(scope: BooksScope, filters: InvoiceFilters, after: Keyset | undefined): Fragment {
  return where([
    cfdiOfMode('x', scope.mode),
    when(filters.statuses, 'x.status = ANY(?::text[])', (v) => [[...v]]),
    when(filters.cfdiType, 'x.cfdi_type = ?'),
    when(filters.receptorRfc, "x.customer->>'rfc' = ?"),
    when(filters.uuid, 'x.uuid = ?', (v) => [v.toUpperCase()]),
    when(filters.series, 'x.series = ?'),
    when(filters.folio, 'x.folio = ?::bigint'),
    coveredSale(filters.saleId),
    ...rangeAndAfter(filters, after),
  ]);
}

const INVOICE_COLUMNS = `x.id, x.merchant_id, x.cfdi_type, x.status, x.uuid, x.series, x.folio::text AS folio,
  x.customer->>'rfc' AS receptor_rfc, x.customer->>'name' AS receptor_name, x.subtotal, x.discount, x.total, x.created_at, x.stamped_at,
  (SELECT g.tickets FROM global_invoices g WHERE g.invoice_id = x.id) AS global_tickets,
  COALESCE((SELECT json_agg(json_build_object('qr_id', q.id, 'store_uid', q.store_uid, 'sale_id', q.sale_id) ORDER BY it.position)
    FROM invoice_tickets it ${TICKET_SALE} WHERE it.invoice_id = x.id), '[]'::json) AS sales`;

const EXPORT_COLUMNS = `${INVOICE_COLUMNS}, x.sealed_xml,
  (SELECT max(c.resolved_at) FROM invoice_cancellations c WHERE c.invoice_id = x.id AND c.status = 'CANCELLED') AS cancelled_at,
  ARRAY(SELECT q.sale_id FROM invoice_tickets it ${TICKET_SALE} WHERE it.invoice_id = x.id ORDER BY it.position) AS sale_ids,
  COALESCE((SELECT t.time_zone FROM qr_transactions t WHERE t.id = x.transaction_id), x.document->>'time_zone') AS time_zone`;

type RawInvoice = Omit<InvoiceListRow, 'key' | 'kind'>;

function withKind<R extends RawInvoice & { key_at: string }>({ key_at, ...r }: R): Omit<R, 'key_at'> & Pick<InvoiceListRow, 'key' | 'kind'> {
  const kind = r.cfdi_type === 'E' ? 'credit_note' : r.cfdi_type === 'P' ? 'payment_complement' : r.global_tickets !== null ? 'global_invoice' : 'invoice';
  return { ...r, key: { at: key_at, id: r.id }, kind };
}

/** A page of the CFDIs of the merchants in scope (every type and state, refused confirmations included). */
export async function listInvoices(db: Db, scope: BooksScope, filters: InvoiceFilters, after: Keyset | undefined, limit: number): Promise<InvoiceListRow[]> {
  const rows = await newestFirst<RawInvoice>(db, 'invoices', INVOICE_COLUMNS, merchantsInScope(scope, filters.storeUid), invoiceFilter(scope, filters, after), limit);
  return rows.map(withKind);
}

/**
 * A batch of export rows: the list's rows with the sealed document, the cancellation date and the sales a ticket
 * invoice covers. A global invoice's sales are not inlined (a month of a chain's unclaimed sales would make one row
 * of millions): its row has their count (`global_tickets`), and GET /v1/qrs?global_invoice_uuid= lists them.
 */
export async function exportInvoices(db: Db, scope: BooksScope, filters: InvoiceFilters, after: Keyset | undefined, limit: number): Promise<InvoiceExportRow[]> {
  const rows = await newestFirst<RawInvoice & Pick<InvoiceExportRow, 'sealed_xml' | 'cancelled_at' | 'sale_ids' | 'time_zone'>>(
    db,
    'invoices',
    EXPORT_COLUMNS,
    merchantsInScope(scope, filters.storeUid),
    invoiceFilter(scope, filters, after),
    limit,
  );
  return rows.map(withKind);
}

/** The merchants of an account, or the one asked for when it is the account's (none otherwise). */
export async function accountMerchantIds(db: Db, accountId: string, merchantId?: string): Promise<string[]> {
  const query = db('merchants').where({ account_id: accountId });
  if (merchantId !== undefined) void query.where({ id: merchantId });
  return ((await query.select('id')) as { id: string }[]).map((r) => r.id);
}

/** What a ZIP entry needs of a stamped CFDI (issue #32): its file names' parts and its stored files. */
export interface ZipEntryRow {
  key: Keyset;
  id: string;
  merchant_id: string;
  uuid: string;
  series: string | null;
  folio: string;
  emitter_rfc: string;
  xml_file_key: string;
  pdf_file_key: string | null;
  cfdi_type: string;
  status: string;
  total: string | null;
  /** Cancelled: when SAT cancelled it and the file of its acuse. */
  cancelled_at: Date | null;
  acuse_file_key: string | null;
}

const ZIP_COLUMNS = `x.id, x.merchant_id, x.created_at, x.uuid, x.series, x.folio::text AS folio, x.xml_file_key, x.pdf_file_key,
  x.cfdi_type, x.status, x.total::text AS total,
  (SELECT s.rfc FROM merchants m JOIN issuers s ON s.id = m.issuer_id WHERE m.id = x.merchant_id) AS emitter_rfc,
  (SELECT c.resolved_at FROM invoice_cancellations c WHERE c.invoice_id = x.id AND c.status = 'CANCELLED' ORDER BY c.resolved_at DESC LIMIT 1) AS cancelled_at,
  (SELECT c.acuse_file_key FROM invoice_cancellations c WHERE c.invoice_id = x.id AND c.status = 'CANCELLED' ORDER BY c.resolved_at DESC LIMIT 1) AS acuse_file_key`;

const stampedOnly = (scope: BooksScope, filters: InvoiceFilters, after: Keyset | undefined): Fragment => {
  const filter = invoiceFilter(scope, filters, after);
  return { sql: `AND x.xml_file_key IS NOT NULL ${filter.sql}`, bindings: filter.bindings };
};

/** A batch of the stamped CFDIs an export's ZIP holds, newest first, after `after` (the list's order and indexes). */
export async function zipEntries(db: Db, scope: BooksScope, filters: InvoiceFilters, after: Keyset | undefined, limit: number): Promise<ZipEntryRow[]> {
  const rows = await newestFirst<Omit<ZipEntryRow, 'key'> & { created_at: Date }>(
    db,
    'invoices',
    ZIP_COLUMNS,
    merchantsInScope(scope, filters.storeUid),
    stampedOnly(scope, filters, after),
    limit,
  );
  return rows.map(({ key_at, created_at: _at, ...r }) => ({ ...r, key: { at: key_at, id: r.id } }));
}

/** How many stamped CFDIs an export's ZIP holds (its progress' total). */
export async function countZipEntries(db: Db, scope: BooksScope, filters: InvoiceFilters): Promise<number> {
  const filter = stampedOnly(scope, filters, undefined);
  const merchants = merchantsInScope(scope, filters.storeUid);
  const result = await db.raw<{ rows: { n: string }[] }>(`SELECT count(*) AS n FROM invoices x WHERE x.merchant_id IN (${merchants.sql}) ${filter.sql}`, [
    ...merchants.bindings,
    ...filter.bindings,
  ]);
  return Number(result.rows[0]?.n ?? 0);
}
