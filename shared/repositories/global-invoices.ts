import type { Db, Trx } from '../platform/db.js';
import type { GlobalPeriodicity } from '../global-invoice/global-period.js';
import type { PageRequest } from '../platform/pagination.js';
import type { InvoiceRow } from './invoices.js';
import type { QrConceptRow, QrConceptTaxRow } from './qr-transactions.js';

/**
 * Sales nobody can claim any more: not invoiced, not being stamped, expired or past their expiry; and not
 * found unreportable (a sale_id no CFDI can hold) by an earlier run.
 */
const UNCLAIMED = `t.global_invoice_id IS NULL AND t.global_period_end IS NOT NULL AND t.confirmed_at IS NULL
  AND t.status IN ('PENDING','SCANNED','EXPIRED') AND t.expires_at <= now() AND t.unreportable IS NULL`;

export interface UnreportedPeriod {
  merchant_id: string;
  issuer_id: string;
  global_period_end: Date;
  global_periodicity: GlobalPeriodicity;
}

/**
 * The next merchant period (after the one `after` names) in the order of `qr_transactions_unreported_period_idx`
 * (global_period_end, merchant_id) that holds an unclaimed sale. ORDER BY the index's columns with LIMIT 1
 * makes it one descent into that index: the more rows the planner expects to match, the sooner it expects
 * the ordered index scan to stop, so an overestimate favours the index instead of a scan of the table (issue #30).
 */
const NEXT_PERIOD = (after: string) => `SELECT t.global_period_end, t.merchant_id FROM qr_transactions t
  WHERE ${UNCLAIMED} AND t.global_period_end <= :closedBefore ${after}
  ORDER BY t.global_period_end, t.merchant_id LIMIT 1`;

/**
 * A loose index scan: each step of the recursion jumps to the next distinct (period end, merchant) of the
 * partial index, so the statement reads one index entry per unreported period plus, for each period of the
 * issuer asked for, its unclaimed sales (their periodicities). The plain `SELECT DISTINCT … WHERE` this
 * replaces was left to the planner's row estimate, which multiplies the selectivities of correlated
 * predicates (an invoiced sale has no global invoice but is not unclaimed): at 10,000,000 rows it expected
 * 519,374 rows for 1,000 and read the whole table (3.1 s) instead of the index (docs/data-growth.md).
 * Exported for the test that reads its plan.
 */
export const UNREPORTED_PERIODS = `WITH RECURSIVE periods AS (
    (${NEXT_PERIOD('')})
    UNION ALL
    SELECT next.global_period_end, next.merchant_id FROM periods p CROSS JOIN LATERAL
      (${NEXT_PERIOD('AND (t.global_period_end, t.merchant_id) > (p.global_period_end, p.merchant_id)')}) next
  )
  SELECT p.merchant_id, m.issuer_id, p.global_period_end, k.global_periodicity
  FROM periods p JOIN merchants m ON m.id = p.merchant_id
  CROSS JOIN LATERAL (SELECT DISTINCT t.global_periodicity FROM qr_transactions t
    WHERE t.merchant_id = p.merchant_id AND t.global_period_end = p.global_period_end AND ${UNCLAIMED}) k
  WHERE :issuerId::text IS NULL OR m.issuer_id = :issuerId
  ORDER BY p.global_period_end, p.merchant_id, k.global_periodicity`;

/** Merchant periods closed before `closedBefore` with unclaimed sales, optionally of one issuer. */
export async function unreportedPeriods(db: Db, closedBefore: Date, issuerId?: string): Promise<UnreportedPeriod[]> {
  const { rows } = (await db.raw(UNREPORTED_PERIODS, { closedBefore, issuerId: issuerId ?? null })) as { rows: UnreportedPeriod[] };
  return rows;
}

/** The merchant's issuer and addresses, which a global invoice's issuer and place of issue come from. */
export interface ReportingPartiesRow {
  issuer_id: string;
  rfc: string;
  business_name: string;
  tax_regime_code: string;
  zip: string;
  address: { zipCode?: string } | null;
}

export async function reportingPartiesOf(db: Db, merchantId: string): Promise<ReportingPartiesRow> {
  return (await db('merchants as m')
    .join('issuers as i', 'i.id', 'm.issuer_id')
    .where('m.id', merchantId)
    .first('i.id as issuer_id', 'i.rfc', 'i.business_name', 'i.tax_regime_code', 'i.zip', 'm.address')) as ReportingPartiesRow;
}

export interface UnclaimedSaleRow {
  id: string;
  sale_id: string;
  sat_payment_form: string;
  sat_payment_method: string;
  currency: string;
  exchange_rate: string | null;
}

/**
 * Locks a merchant's unclaimed sales of one period (FOR UPDATE, until the transaction ends) and reads them
 * with their concepts and taxes. A sale already reported, or claimed meanwhile, is not in the result.
 */
export async function lockUnclaimedSales(
  trx: Trx,
  merchantId: string,
  periodEnd: Date,
): Promise<{ sales: UnclaimedSaleRow[]; concepts: QrConceptRow[]; taxes: QrConceptTaxRow[] }> {
  const locked = (await trx('qr_transactions as t')
    .where('t.merchant_id', merchantId)
    .where('t.global_period_end', periodEnd)
    .whereRaw(UNCLAIMED)
    .forUpdate()
    .select('t.id', 't.created_at', 't.sale_id', 't.sat_payment_form', 't.sat_payment_method', 't.currency', 't.exchange_rate')) as (UnclaimedSaleRow & {
    created_at: Date;
  })[];
  if (locked.length === 0) return { sales: [], concepts: [], taxes: [] };
  // The lines by their partition key too, so each sale's month is the one probed (not every month of five
  // years: issue #41), bounded by the period's first and last sale for the planner; one array parameter each,
  // however many sales (a period can hold tens of thousands). An instant is matched to its millisecond (a Date
  // holds milliseconds; the old table's rows have microseconds). A probe per sale (OFFSET 0 keeps the subquery
  // a nested loop): joined, the planner took a parallel scan of the month's lines for 1,000 sales of a
  // 100,000-sale month (78 ms), where the probes take 5.
  const instants = locked.map((r) => r.created_at.getTime());
  const bounds = [new Date(Math.min(...instants)), new Date(Math.max(...instants) + 1)];
  const keys = [locked.map((r) => r.id), locked.map((r) => r.created_at), ...bounds];
  const ofSales = (table: string) =>
    `SELECT l.* FROM unnest(?::text[], ?::timestamptz[]) AS s (id, at)
     CROSS JOIN LATERAL (SELECT * FROM ${table} x WHERE x.transaction_id = s.id
       AND x.transaction_created_at >= s.at AND x.transaction_created_at < s.at + interval '1 millisecond'
       AND x.transaction_created_at >= ? AND x.transaction_created_at < ? OFFSET 0) l`;
  // One after the other: a transaction is one connection (pg refuses queries queued on a busy client from v9).
  const concepts = (await trx.raw(`${ofSales('qr_concepts')} ORDER BY l.transaction_id, l.position`, keys)) as { rows: QrConceptRow[] };
  const taxes = (await trx.raw(`${ofSales('qr_concept_taxes')} ORDER BY l.transaction_id, l.concept_position, l.position`, keys)) as { rows: QrConceptTaxRow[] };
  const sales = locked.map(({ created_at: _at, ...sale }) => sale);
  return { sales, concepts: concepts.rows, taxes: taxes.rows };
}

/** The last part already recorded for the period, per payment form and method. */
export async function lastParts(trx: Trx, merchantId: string, periodEnd: Date): Promise<{ payment_form: string; payment_method: string; last: number }[]> {
  return (await trx('global_invoices')
    .where({ merchant_id: merchantId, period_end: periodEnd })
    .groupBy('payment_form', 'payment_method')
    .select('payment_form', 'payment_method', trx.raw('max(part)::int as last'))) as { payment_form: string; payment_method: string; last: number }[];
}

/** How many global invoices of the merchant's period were refused. */
export async function refusedGlobalInvoices(db: Db, merchantId: string, periodEnd: Date): Promise<number> {
  const row = (await db('global_invoices as g')
    .join('invoices as i', 'i.id', 'g.invoice_id')
    .where({ 'g.merchant_id': merchantId, 'g.period_end': periodEnd, 'i.status': 'REFUSED' })
    .count({ n: '*' })
    .first()) as { n: string } | undefined;
  return Number(row?.n ?? 0);
}

export async function insertGlobalInvoice(trx: Trx, row: Omit<GlobalInvoiceRow, 'created_at'>): Promise<void> {
  await trx('global_invoices').insert(row);
}

/** These sales are reported by that global invoice: EXPIRED, no longer anyone's to claim. */
export async function markSalesReported(trx: Trx, saleIds: string[], invoiceId: string): Promise<void> {
  await trx('qr_transactions')
    .whereRaw('id = ANY(?::text[])', [saleIds])
    .update({
      global_invoice_id: invoiceId,
      status: 'EXPIRED',
      expired_at: trx.raw('coalesce(expired_at, now())'),
      updated_at: trx.fn.now(),
    });
}

/** These sales can never be a global invoice's tickets (`reason`): EXPIRED, named in the period summary, not looked at again. */
export async function markSalesUnreportable(trx: Trx, sales: { id: string; reason: string }[]): Promise<void> {
  for (const { id, reason } of sales) {
    await trx('qr_transactions')
      .where({ id })
      .update({ unreportable: reason, status: 'EXPIRED', expired_at: trx.raw('coalesce(expired_at, now())'), updated_at: trx.fn.now() });
  }
}

export interface GlobalInvoiceRow {
  invoice_id: string;
  issuer_id: string;
  merchant_id: string;
  periodicity: GlobalPeriodicity;
  period_start: Date;
  period_end: Date;
  payment_form: string;
  payment_method: string;
  part: number;
  tickets: number;
  created_at: Date;
}

export type GlobalInvoiceListRow = GlobalInvoiceRow & Pick<InvoiceRow, 'status' | 'uuid' | 'series' | 'folio' | 'total' | 'refusal'>;

const LIST_COLUMNS = ['g.*', 'i.status', 'i.uuid', 'i.series', 'i.folio', 'i.total', 'i.refusal'];

/** An issuer's global invoices, newest period first. */
export async function listGlobalInvoices(db: Db, issuerId: string, page: PageRequest): Promise<{ rows: GlobalInvoiceListRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db('global_invoices as g')
      .join('invoices as i', 'i.id', 'g.invoice_id')
      .where('g.issuer_id', issuerId)
      .orderBy([{ column: 'g.period_end', order: 'desc' }, { column: 'g.merchant_id' }, { column: 'g.payment_form' }, { column: 'g.part' }])
      .offset(page.page * page.size)
      .limit(page.size)
      .select(LIST_COLUMNS),
    db('global_invoices').where({ issuer_id: issuerId }).count({ n: '*' }).first(),
  ]);
  return { rows: rows as GlobalInvoiceListRow[], total: Number((count as { n: string } | undefined)?.n ?? 0) };
}

/** These global invoices (just recorded), as listed. */
export async function globalInvoicesByIds(db: Db, invoiceIds: string[]): Promise<GlobalInvoiceListRow[]> {
  return (await db('global_invoices as g')
    .join('invoices as i', 'i.id', 'g.invoice_id')
    .whereIn('g.invoice_id', invoiceIds)
    .orderBy([{ column: 'g.period_end' }, { column: 'g.merchant_id' }, { column: 'g.payment_form' }, { column: 'g.part' }])
    .select(LIST_COLUMNS)) as GlobalInvoiceListRow[];
}

/** Whether an invoice is a global invoice (motive 04 cancels only those). */
export async function isGlobalInvoice(db: Db, invoiceId: string): Promise<boolean> {
  return (await db('global_invoices').where({ invoice_id: invoiceId }).first('invoice_id')) !== undefined;
}

/** A merchant period whose global invoices were refused `atLeast` times while sales of it wait to be reported. */
export interface HeldBackPeriod extends UnreportedPeriod {
  refused: number;
  /** The last refusal: when, and what it said. */
  last_refused_at: Date;
  last_refusal: { code?: string; message?: string; details?: { pac_code?: string }[] } | null;
}

/** Periods the scheduled job no longer reports by itself (workers/issue-global-invoices.ts), oldest first. */
export async function heldBackPeriods(db: Db, atLeast: number, limit: number): Promise<HeldBackPeriod[]> {
  const held: HeldBackPeriod[] = [];
  for (const p of await unreportedPeriods(db, new Date())) {
    const last = (await db('global_invoices as g')
      .join('invoices as i', 'i.id', 'g.invoice_id')
      .where({ 'g.merchant_id': p.merchant_id, 'g.period_end': p.global_period_end, 'i.status': 'REFUSED' })
      .orderBy('i.updated_at', 'desc')
      .select('i.updated_at', 'i.refusal', db.raw('count(*) OVER ()::int AS refused'))
      .first()) as { updated_at: Date; refusal: HeldBackPeriod['last_refusal']; refused: number } | undefined;
    if (last && last.refused >= atLeast) held.push({ ...p, refused: last.refused, last_refused_at: last.updated_at, last_refusal: last.refusal });
    if (held.length >= limit) break;
  }
  return held;
}
