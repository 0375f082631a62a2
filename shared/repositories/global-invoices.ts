import type { Db } from '../platform/db.js';
import { globalPeriodEndingAt, type GlobalPeriodicity } from '../global-invoice/global-period.js';
import { GENERIC_RECEPTOR, planGlobalInvoices, type UnclaimedTicket } from '../global-invoice/plan-global-invoice.js';
import { newId } from '../platform/ids.js';
import { storedDocumentJson } from '../invoices/stored-document.js';
import type { PageRequest } from '../platform/pagination.js';
import { insertNumbered, type InvoiceRow } from './invoices.js';
import type { QrConceptRow, QrConceptTaxRow } from './qr-transactions.js';

/** Sales nobody can claim any more: not invoiced, not being stamped, expired or past their expiry. */
const UNCLAIMED = `t.global_invoice_id IS NULL AND t.global_period_end IS NOT NULL AND t.confirmed_at IS NULL
  AND t.status IN ('PENDING','SCANNED','EXPIRED') AND t.expires_at <= now()`;

export interface UnreportedPeriod {
  merchant_id: string;
  issuer_id: string;
  global_period_end: Date;
  global_periodicity: GlobalPeriodicity;
}

/** Merchant periods closed before `closedBefore` with unclaimed sales, optionally of one issuer. */
export async function unreportedPeriods(db: Db, closedBefore: Date, issuerId?: string): Promise<UnreportedPeriod[]> {
  const { rows } = (await db.raw(
    `SELECT DISTINCT t.merchant_id, m.issuer_id, t.global_period_end, t.global_periodicity
     FROM qr_transactions t JOIN merchants m ON m.id = t.merchant_id
     WHERE ${UNCLAIMED} AND t.global_period_end <= ? ${issuerId ? 'AND m.issuer_id = ?' : ''}
     ORDER BY t.global_period_end, t.merchant_id`,
    issuerId ? [closedBefore, issuerId] : [closedBefore],
  )) as { rows: UnreportedPeriod[] };
  return rows;
}

function byTransaction<T extends { transaction_id: string }>(rows: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) {
    const list = out.get(row.transaction_id);
    if (list) list.push(row);
    else out.set(row.transaction_id, [row]);
  }
  return out;
}

/** What the global invoice needs of the merchant and its issuer. */
async function reportingParties(db: Db, merchantId: string) {
  const row = (await db('merchants as m')
    .join('issuers as i', 'i.id', 'm.issuer_id')
    .where('m.id', merchantId)
    .first('i.id as issuer_id', 'i.rfc', 'i.business_name', 'i.tax_regime_code', 'i.zip', 'm.address')) as {
    issuer_id: string;
    rfc: string;
    business_name: string;
    tax_regime_code: string;
    zip: string;
    address: { zipCode?: string } | null;
  };
  return { issuerId: row.issuer_id, issuer: { rfc: row.rfc, name: row.business_name, taxRegime: row.tax_regime_code }, expeditionPlace: row.address?.zipCode ?? row.zip };
}

/**
 * Reports a merchant's unclaimed sales of one period: in one transaction the sales are locked, planned
 * into global invoices (STAMPING, the merchant's folios), and marked with the invoice that reports them
 * (and EXPIRED). A sale already reported, or claimed meanwhile, is not in the lock's result: nothing is
 * reported twice. Returns the new invoices, to be queued for stamping after the commit.
 */
export async function recordGlobalInvoices(db: Db, merchantId: string, periodEnd: Date, periodicity: GlobalPeriodicity): Promise<InvoiceRow[]> {
  const parties = await reportingParties(db, merchantId);
  const period = globalPeriodEndingAt(periodEnd, periodicity);
  return db.transaction(async (trx) => {
    const rows = (await trx('qr_transactions as t')
      .where('t.merchant_id', merchantId)
      .where('t.global_period_end', periodEnd)
      .whereRaw(UNCLAIMED)
      .forUpdate()
      .select('t.id', 't.sale_id', 't.sat_payment_form', 't.sat_payment_method', 't.currency', 't.exchange_rate')) as {
      id: string;
      sale_id: string;
      sat_payment_form: string;
      sat_payment_method: string;
      currency: string;
      exchange_rate: string | null;
    }[];
    if (rows.length === 0) return [];
    // One array parameter, however many sales (a period can hold tens of thousands).
    const ids = rows.map((r) => r.id);
    const [concepts, taxes] = await Promise.all([
      trx('qr_concepts')
        .whereRaw('transaction_id = ANY(?::text[])', [ids])
        .orderBy([{ column: 'transaction_id' }, { column: 'position' }]) as Promise<QrConceptRow[]>,
      trx('qr_concept_taxes')
        .whereRaw('transaction_id = ANY(?::text[])', [ids])
        .orderBy([{ column: 'transaction_id' }, { column: 'concept_position' }, { column: 'position' }]) as Promise<QrConceptTaxRow[]>,
    ]);
    const conceptsOf = byTransaction(concepts);
    const taxesOf = byTransaction(taxes);
    const tickets: UnclaimedTicket[] = rows.map((r) => ({
      id: r.id,
      saleId: r.sale_id,
      paymentForm: r.sat_payment_form,
      paymentMethod: r.sat_payment_method,
      currency: r.currency,
      exchangeRate: r.exchange_rate,
      concepts: conceptsOf.get(r.id) ?? [],
      taxes: taxesOf.get(r.id) ?? [],
    }));
    const parts = planGlobalInvoices({ tickets, period, issuer: parties.issuer, expeditionPlace: parties.expeditionPlace });
    // Sales claimed back after an earlier report (a refused stamp) come as further parts of the same period.
    const earlier = (await trx('global_invoices')
      .where({ merchant_id: merchantId, period_end: period.end })
      .groupBy('payment_form', 'payment_method')
      .select('payment_form', 'payment_method', trx.raw('max(part)::int as last'))) as { payment_form: string; payment_method: string; last: number }[];
    const lastPart = (p: { paymentForm: string; paymentMethod: string }) =>
      earlier.find((e) => e.payment_form === p.paymentForm && e.payment_method === p.paymentMethod)?.last ?? 0;
    const invoices: InvoiceRow[] = [];
    for (const part of parts) {
      const invoice = await insertNumbered(trx, {
        id: newId('invoice'),
        transaction_id: null,
        merchant_id: merchantId,
        cfdi_type: 'I',
        // Nobody to e-mail: público en general.
        customer: JSON.stringify({
          rfc: GENERIC_RECEPTOR.rfc,
          name: GENERIC_RECEPTOR.name,
          tax_regime: GENERIC_RECEPTOR.taxRegime,
          postal_code: parties.expeditionPlace,
          cfdi_use: GENERIC_RECEPTOR.cfdiUse,
          email: '',
        }),
        document: storedDocumentJson({ timeZone: 'America/Mexico_City', input: part.input }),
      });
      await trx('global_invoices').insert({
        invoice_id: invoice.id,
        issuer_id: parties.issuerId,
        merchant_id: merchantId,
        periodicity,
        period_start: period.start,
        period_end: period.end,
        payment_form: part.paymentForm,
        payment_method: part.paymentMethod,
        part: lastPart(part) + part.part,
        tickets: part.ticketIds.length,
      });
      await trx('qr_transactions')
        .whereRaw('id = ANY(?::text[])', [part.ticketIds])
        .update({
          global_invoice_id: invoice.id,
          status: 'EXPIRED',
          expired_at: trx.raw('coalesce(expired_at, now())'),
          updated_at: trx.fn.now(),
        });
      invoices.push(invoice);
    }
    return invoices;
  });
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
