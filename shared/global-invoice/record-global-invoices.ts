import type { Db } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { storedDocumentJson } from '../invoices/stored-document.js';
import { insertNumbered, type InvoiceRow } from '../repositories/invoices.js';
import {
  insertGlobalInvoice,
  lastParts,
  lockUnclaimedSales,
  markSalesReported,
  markSalesUnreportable,
  reportingPartiesOf,
  type ReportingPartiesRow,
} from '../repositories/global-invoices.js';
import { globalPeriodEndingAt, type GlobalPeriodicity } from './global-period.js';
import { GENERIC_RECEPTOR, planGlobalInvoices, unreportableReason, type UnclaimedTicket } from './plan-global-invoice.js';

function byTransaction<T extends { transaction_id: string }>(rows: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) {
    const list = out.get(row.transaction_id);
    if (list) list.push(row);
    else out.set(row.transaction_id, [row]);
  }
  return out;
}

/** What the global invoice needs of the merchant and its issuer: the place of issue is the store's zip, else the issuer's. */
function reportingParties(row: ReportingPartiesRow) {
  return { issuerId: row.issuer_id, issuer: { rfc: row.rfc, name: row.business_name, taxRegime: row.tax_regime_code }, expeditionPlace: row.address?.zipCode ?? row.zip };
}

/**
 * Reports a merchant's unclaimed sales of one period: in one transaction the sales are locked, planned
 * into global invoices (STAMPING, the merchant's folios), and marked with the invoice that reports them
 * (and EXPIRED). A sale already reported, or claimed meanwhile, is not in the lock's result: nothing is
 * reported twice. A sale whose sale_id no CFDI can hold is marked unreportable with the reason instead (the
 * period summary names it) and no longer looked at: it never blocks the others. Returns the new invoices, to
 * be queued for stamping after the commit.
 */
export async function recordGlobalInvoices(db: Db, merchantId: string, periodEnd: Date, periodicity: GlobalPeriodicity): Promise<InvoiceRow[]> {
  const parties = reportingParties(await reportingPartiesOf(db, merchantId));
  const period = globalPeriodEndingAt(periodEnd, periodicity);
  return db.transaction(async (trx) => {
    const { sales, concepts, taxes } = await lockUnclaimedSales(trx, merchantId, periodEnd);
    if (sales.length === 0) return [];
    const conceptsOf = byTransaction(concepts);
    const taxesOf = byTransaction(taxes);
    const tickets: UnclaimedTicket[] = [];
    const unreportable: { id: string; reason: string }[] = [];
    for (const r of sales) {
      const reason = unreportableReason(r.sale_id);
      if (reason !== undefined) {
        unreportable.push({ id: r.id, reason });
        continue;
      }
      tickets.push({
        id: r.id,
        saleId: r.sale_id,
        paymentForm: r.sat_payment_form,
        paymentMethod: r.sat_payment_method,
        currency: r.currency,
        exchangeRate: r.exchange_rate,
        concepts: conceptsOf.get(r.id) ?? [],
        taxes: taxesOf.get(r.id) ?? [],
      });
    }
    await markSalesUnreportable(trx, unreportable);
    if (tickets.length === 0) return [];
    const parts = planGlobalInvoices({ tickets, period, issuer: parties.issuer, expeditionPlace: parties.expeditionPlace });
    // Sales claimed back after an earlier report (a refused stamp) come as further parts of the same period.
    const earlier = await lastParts(trx, merchantId, period.end);
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
      await insertGlobalInvoice(trx, {
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
      await markSalesReported(trx, part.ticketIds, invoice.id);
      invoices.push(invoice);
    }
    return invoices;
  });
}
