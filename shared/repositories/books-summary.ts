/**
 * What a period summary of the merchant's books (issue #32) reads: sales, stamped CFDIs, credit notes and
 * payment complements against their invoices, and the rows that do not add up. Every query starts from the
 * (merchant_id, created_at, id) indexes of migrations/20261127110000_books_indexes.ts (one range per merchant:
 * `merchant_id = ANY(…) AND created_at >= … AND created_at < …`) and adds up in PostgreSQL, in numeric, so
 * sums are exact and only the groups travel; each total is returned as numeric text. The taxes are read from
 * the document as sealed (its cfdi:Impuestos), parsed once per CFDI by PostgreSQL's xpath.
 * shared/books/period-summary.ts puts the figures together.
 */
import type { Knex } from 'knex';
import type { Db } from '../platform/db.js';
import { cfdiOfMode } from './cfdi-mode.js';

/** The merchants, the period [from, to) and, for an API key, the mode of the QRs. */
export interface SummaryScope {
  merchantIds: readonly string[];
  from: Date;
  to: Date;
  mode?: string;
  /** Sales whose global period closed before this are due in a global invoice. */
  now: Date;
}

/** How many differences of one kind are named at most (the count says how many there are). */
export const DIFFERENCES_NAMED = 100;

export interface MerchantIssuerRow {
  merchant_id: string;
  merchant_name: string;
  issuer_id: string;
  issuer_rfc: string;
}

export const SALE_BUCKETS = ['recorded', 'invoiced', 'global_invoice', 'expired_unclaimed', 'cancelled', 'open'] as const;
export type SaleBucket = (typeof SALE_BUCKETS)[number];

export type SalesRow = { merchant_id: string; currency: string } & Record<`${SaleBucket}_count`, number> & Record<`${SaleBucket}_total`, string>;

export interface CfdiGroupRow {
  merchant_id: string;
  cfdi_type: 'I' | 'E' | 'P';
  cancelled: boolean;
  currency: string;
  count: number;
  subtotal: string;
  discount: string;
  total: string;
  taxes: { kind: 'Traslado' | 'Retencion'; tax: string; amount: string }[];
}

export interface RelatedInvoiceRow {
  merchant_id: string;
  invoice_id: string;
  invoice_uuid: string | null;
  invoice_total: string | null;
  /** The documents of the period (credit notes or payment complements) relating to it, and their amounts. */
  documents: number;
  amount: string;
  /** Every live document of any period against it: what a difference compares with its total. */
  amount_all: string;
  /** Payment complements: the balance left after the last one. */
  remaining_balance: string | null;
}

export type DifferenceCode =
  | 'sale_not_reported'
  | 'sale_unreportable'
  | 'global_invoice_not_stamped'
  | 'sale_invoiced_without_invoice'
  | 'sale_invoiced_and_reported'
  | 'invoice_sale_not_invoiced'
  | 'global_ticket_count'
  | 'offline_sale_other_period'
  | 'sale_repeated';

export interface DifferenceRow {
  merchant_id: string;
  code: DifferenceCode;
  qr_id: string | null;
  sale_id: string | null;
  invoice_id: string | null;
  uuid: string | null;
  /** global_ticket_count: the tickets the document says and the sales that point at it. */
  expected: number | null;
  actual: number | null;
  /** sale_unreportable: why; global_invoice_not_stamped: the global invoice's status; offline_sale_other_period: when it was sold; sale_repeated: the sale's other QRs. */
  detail: string | null;
}

const NS = `ARRAY[ARRAY['cfdi','http://www.sat.gob.mx/cfd/4']]`;
/** A stamped CFDI that is still valid for SAT (cancelling, rejected or pending cancellation included). */
const STAMPED = `('ACTIVE','CANCELLING','CANCELLATION_PENDING','CANCELLATION_REJECTED','CANCELLED')`;
const LIVE_STAMPED = `('ACTIVE','CANCELLING','CANCELLATION_PENDING','CANCELLATION_REJECTED')`;

/** Rows of `alias` in the period; for an API key, of its mode: a sale's own column, a CFDI's from its sales (cfdi-mode.ts). */
function inPeriod(alias: string, scope: SummaryScope, rows: 'sales' | 'cfdis'): { sql: string; bindings: Knex.Value[] } {
  const mode = scope.mode === undefined ? undefined : rows === 'sales' ? { sql: `${alias}.mode = ?`, bindings: [scope.mode] } : cfdiOfMode(alias, scope.mode);
  return {
    sql: `${alias}.merchant_id = ANY(?::text[]) AND ${alias}.created_at >= ? AND ${alias}.created_at < ?${mode ? ` AND ${mode.sql}` : ''}`,
    bindings: [[...scope.merchantIds], scope.from, scope.to, ...(mode ? mode.bindings : [])],
  };
}

async function rows<R>(db: Db, sql: string, bindings: readonly Knex.Value[]): Promise<R[]> {
  return (await db.raw<{ rows: R[] }>(sql, bindings)).rows;
}

export function merchantIssuers(db: Db, merchantIds: readonly string[]): Promise<MerchantIssuerRow[]> {
  return rows(
    db,
    `SELECT m.id AS merchant_id, m.name AS merchant_name, i.id AS issuer_id, i.rfc AS issuer_rfc
     FROM merchants m JOIN issuers i ON i.id = m.issuer_id WHERE m.id = ANY(?::text[]) ORDER BY m.id`,
    [[...merchantIds]],
  );
}

// A sale counts as reported only once its global invoice is stamped: one being stamped, or refused before its
// sales were released, reports nothing yet (issue #38). CASE short-circuits: one primary-key probe per sale in a
// global invoice, none for the others (a join could read every invoice of the database).
const REPORTED = `CASE WHEN x.global_invoice_id IS NULL THEN false ELSE EXISTS (SELECT 1 FROM invoices g WHERE g.id = x.global_invoice_id AND g.status IN ${STAMPED}) END`;

const BUCKET_WHERE: Record<SaleBucket, string> = {
  recorded: 'true',
  invoiced: `x.status = 'INVOICED'`,
  global_invoice: 'x.reported',
  expired_unclaimed: `x.status = 'EXPIRED' AND NOT x.reported`,
  cancelled: `x.status = 'CANCELLED'`,
  open: `x.status IN ('PENDING','SCANNED') AND x.global_invoice_id IS NULL`,
};

/** The period's sales by merchant and currency: how many and how much in each state. */
export function periodSales(db: Db, scope: SummaryScope): Promise<SalesRow[]> {
  const period = inPeriod('x', scope, 'sales');
  const figures = SALE_BUCKETS.map(
    (b) => `count(*) FILTER (WHERE ${BUCKET_WHERE[b]})::int AS ${b}_count, COALESCE(sum(x.amount) FILTER (WHERE ${BUCKET_WHERE[b]}), 0)::text AS ${b}_total`,
  ).join(',\n');
  // `reported` worked out once per sale, read by two buckets.
  return rows(
    db,
    `SELECT x.merchant_id, x.currency, ${figures}
     FROM (SELECT x.merchant_id, x.currency, x.status, x.amount, x.global_invoice_id, ${REPORTED} AS reported FROM qr_transactions x WHERE ${period.sql}) x
     GROUP BY 1, 2 ORDER BY 1, 2`,
    period.bindings,
  );
}

/** The period's stamped CFDIs by merchant, type, cancelled or not and currency, with their amounts and taxes. */
export function periodCfdis(db: Db, scope: SummaryScope): Promise<CfdiGroupRow[]> {
  const period = inPeriod('x', scope, 'cfdis');
  const taxLines = (path: string, kind: string) =>
    `SELECT '${kind}' AS kind, (xpath('/*/@Impuesto', n))[1]::text AS tax, (xpath('/*/@Importe', n))[1]::text::numeric AS amount
     FROM unnest(xpath('/cfdi:Comprobante/cfdi:Impuestos/${path}', c.doc, ${NS})) n`;
  return rows(
    db,
    `WITH c AS MATERIALIZED (
       SELECT d.*, COALESCE((xpath('/cfdi:Comprobante/@Moneda', d.doc, ${NS}))[1]::text, '') AS currency FROM (
         SELECT x.merchant_id, x.cfdi_type, x.status = 'CANCELLED' AS cancelled, x.subtotal, x.discount, x.total, x.sealed_xml::xml AS doc
         FROM invoices x WHERE ${period.sql} AND x.status IN ${STAMPED} AND x.sealed_xml IS NOT NULL) d
     ),
     t AS (
       SELECT c.merchant_id, c.cfdi_type, c.cancelled, c.currency, l.kind, l.tax, sum(l.amount)::text AS amount
       FROM c CROSS JOIN LATERAL (${taxLines('cfdi:Traslados/cfdi:Traslado', 'Traslado')} UNION ALL ${taxLines('cfdi:Retenciones/cfdi:Retencion', 'Retencion')}) l
       WHERE l.amount IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6
     )
     SELECT g.*, COALESCE((SELECT json_agg(json_build_object('kind', t.kind, 'tax', t.tax, 'amount', t.amount) ORDER BY t.kind DESC, t.tax) FROM t
       WHERE t.merchant_id = g.merchant_id AND t.cfdi_type = g.cfdi_type AND t.cancelled = g.cancelled AND t.currency = g.currency), '[]'::json) AS taxes
     FROM (SELECT merchant_id, cfdi_type, cancelled, currency, count(*)::int AS count, COALESCE(sum(subtotal), 0)::text AS subtotal,
             COALESCE(sum(discount), 0)::text AS discount, COALESCE(sum(total), 0)::text AS total
           FROM c GROUP BY 1, 2, 3, 4) g
     ORDER BY g.merchant_id, g.cfdi_type, g.cancelled, g.currency`,
    period.bindings,
  );
}

/** The invoices the period's live credit notes relate to, with what those credit and what every live one does. */
export function creditedInvoices(db: Db, scope: SummaryScope): Promise<RelatedInvoiceRow[]> {
  const period = inPeriod('n', scope, 'cfdis');
  return rows(
    db,
    `SELECT n.merchant_id, i.id AS invoice_id, i.uuid AS invoice_uuid, i.total::text AS invoice_total, count(*)::int AS documents, sum(a.amount)::text AS amount,
       (SELECT sum(a2.amount) FROM credit_allocations a2 JOIN invoices n2 ON n2.id = a2.credit_note_id
        WHERE a2.invoice_id = i.id AND n2.status IN ${LIVE_STAMPED})::text AS amount_all, NULL AS remaining_balance
     FROM invoices n JOIN credit_allocations a ON a.credit_note_id = n.id JOIN invoices i ON i.id = a.invoice_id
     WHERE ${period.sql} AND n.cfdi_type = 'E' AND n.status IN ${LIVE_STAMPED}
     GROUP BY n.merchant_id, i.id ORDER BY n.merchant_id, i.uuid`,
    period.bindings,
  );
}

/** The invoices the period's live payment complements pay, with what they paid, every live payment and the balance left. */
export function paidInvoices(db: Db, scope: SummaryScope): Promise<RelatedInvoiceRow[]> {
  const period = inPeriod('p', scope, 'cfdis');
  return rows(
    db,
    `SELECT p.merchant_id, i.id AS invoice_id, i.uuid AS invoice_uuid, i.total::text AS invoice_total, count(*)::int AS documents, sum(a.amount_paid)::text AS amount,
       (SELECT sum(a2.amount_paid) FROM payment_allocations a2 WHERE a2.invoice_id = i.id AND a2.live)::text AS amount_all,
       min(a.remaining_balance)::text AS remaining_balance
     FROM invoices p JOIN payment_allocations a ON a.payment_complement_id = p.id AND a.live JOIN invoices i ON i.id = a.invoice_id
     WHERE ${period.sql} AND p.cfdi_type = 'P' AND p.status IN ${LIVE_STAMPED}
     GROUP BY p.merchant_id, i.id ORDER BY p.merchant_id, i.uuid`,
    period.bindings,
  );
}

/**
 * The rows of the period that do not add up, each kind named up to DIFFERENCES_NAMED times (oldest first),
 * with how many there are in all (`total`).
 */
export async function periodDifferences(db: Db, scope: SummaryScope): Promise<(DifferenceRow & { total: number })[]> {
  const sales = inPeriod('x', scope, 'sales');
  const repeats = inPeriod('y', scope, 'sales');
  const invoices = inPeriod('x', scope, 'cfdis');
  const named = (code: DifferenceCode, select: string, from: string, bindings: Knex.Value[]) =>
    rows<DifferenceRow & { total: number }>(
      db,
      `SELECT * FROM (SELECT x.merchant_id, '${code}' AS code, ${select}, count(*) OVER (PARTITION BY x.merchant_id)::int AS total,
         row_number() OVER (PARTITION BY x.merchant_id ORDER BY x.created_at, x.id) AS n ${from}) d
       WHERE d.n <= ${DIFFERENCES_NAMED} ORDER BY d.merchant_id, d.n`,
      bindings,
    );
  const sale = `x.id AS qr_id, x.sale_id, NULL::text AS invoice_id, NULL::text AS uuid, NULL::int AS expected, NULL::int AS actual, NULL::text AS detail`;
  const liveInvoiceOf = `EXISTS (SELECT 1 FROM invoice_tickets it JOIN invoices i ON i.id = it.invoice_id WHERE it.transaction_id = x.id AND i.status <> 'REFUSED')`;
  const found = await Promise.all([
    // Unclaimed, its global period closed (or none to be reported in, once expired), and in no global invoice.
    named(
      'sale_not_reported',
      sale,
      `FROM qr_transactions x WHERE ${sales.sql} AND x.global_invoice_id IS NULL AND x.unreportable IS NULL
         AND ((x.status IN ('PENDING','SCANNED','EXPIRED') AND x.global_period_end <= ?) OR (x.status = 'EXPIRED' AND x.global_period_end IS NULL))`,
      [...sales.bindings, scope.now],
    ),
    // Left out of its period's global invoice: its sale_id no CFDI can hold (recordGlobalInvoices).
    named(
      'sale_unreportable',
      `x.id AS qr_id, x.sale_id, NULL::text AS invoice_id, NULL::text AS uuid, NULL::int AS expected, NULL::int AS actual, x.unreportable AS detail`,
      `FROM qr_transactions x WHERE ${sales.sql} AND x.global_invoice_id IS NULL AND x.unreportable IS NOT NULL`,
      sales.bindings,
    ),
    // In a global invoice that is not stamped (being stamped, or refused): not reported yet.
    named(
      'global_invoice_not_stamped',
      `x.id AS qr_id, x.sale_id, g.id AS invoice_id, g.uuid, NULL::int AS expected, NULL::int AS actual, g.status AS detail`,
      `FROM qr_transactions x JOIN invoices g ON g.id = x.global_invoice_id WHERE ${sales.sql} AND g.status NOT IN ${STAMPED}`,
      sales.bindings,
    ),
    // Sold offline in a period that had closed when the sale arrived: recorded here, it belongs to that period.
    named(
      'offline_sale_other_period',
      `x.id AS qr_id, x.sale_id, NULL::text AS invoice_id, NULL::text AS uuid, NULL::int AS expected, NULL::int AS actual,
         to_char(x.sold_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS detail`,
      `FROM qr_transactions x WHERE ${sales.sql} AND x.sold_at IS NOT NULL AND x.global_period_end <= x.created_at`,
      sales.bindings,
    ),
    // One sale_id with several QRs that are not cancelled (a new QR after the first expired): the period's own, by one
    // hash aggregate over its range (an expired QR is in no index by sale_id).
    named(
      'sale_repeated',
      `x.id AS qr_id, x.sale_id, NULL::text AS invoice_id, NULL::text AS uuid, NULL::int AS expected, NULL::int AS actual, r.qrs AS detail`,
      `FROM qr_transactions x JOIN (SELECT y.merchant_id, y.mode, y.sale_id, string_agg(y.id || ' (' || y.status || ')', ', ' ORDER BY y.created_at, y.id) AS qrs
         FROM qr_transactions y WHERE ${repeats.sql} AND y.status <> 'CANCELLED' GROUP BY 1, 2, 3 HAVING count(*) > 1) r
         ON r.merchant_id = x.merchant_id AND r.mode = x.mode AND r.sale_id = x.sale_id
       WHERE ${sales.sql} AND x.status <> 'CANCELLED'`,
      [...repeats.bindings, ...sales.bindings],
    ),
    named('sale_invoiced_without_invoice', sale, `FROM qr_transactions x WHERE ${sales.sql} AND x.status = 'INVOICED' AND NOT ${liveInvoiceOf}`, sales.bindings),
    named('sale_invoiced_and_reported', sale, `FROM qr_transactions x WHERE ${sales.sql} AND x.global_invoice_id IS NOT NULL AND ${liveInvoiceOf}`, sales.bindings),
    named(
      'invoice_sale_not_invoiced',
      `q.id AS qr_id, q.sale_id, x.id AS invoice_id, x.uuid, NULL::int AS expected, NULL::int AS actual, NULL::text AS detail`,
      `FROM invoices x JOIN invoice_tickets it ON it.invoice_id = x.id JOIN qr_transactions q ON q.id = it.transaction_id
         AND q.created_at = it.transaction_created_at -- the ticket's sale's month only (issue #41)
       WHERE ${invoices.sql} AND x.cfdi_type = 'I' AND x.status IN ${LIVE_STAMPED} AND q.status <> 'INVOICED'`,
      invoices.bindings,
    ),
    named(
      'global_ticket_count',
      `NULL::text AS qr_id, NULL::text AS sale_id, x.id AS invoice_id, x.uuid, g.tickets AS expected, s.sales AS actual, NULL::text AS detail`,
      `FROM invoices x JOIN global_invoices g ON g.invoice_id = x.id
       CROSS JOIN LATERAL (SELECT count(*)::int AS sales FROM qr_transactions q WHERE q.global_invoice_id = x.id) s
       WHERE ${invoices.sql} AND x.status <> 'REFUSED' AND s.sales <> g.tickets`,
      invoices.bindings,
    ),
  ]);
  return found.flat();
}
