/**
 * A period of the merchant's books, added up (issue #32): per merchant and its issuer, the sales and what
 * became of them, the CFDIs stamped by type (cancelled ones apart) with their amounts and taxes, the credit
 * notes and payment complements against the invoices they relate to, and every difference named by its ids.
 * No I/O: the figures come from shared/repositories/books-summary.ts, already summed in PostgreSQL (numeric);
 * the amounts compared here are compared as decimals (shared/domain/money.ts), never as floats.
 */
import { ACCOUNTING_TAXES, type AccountingTaxColumn } from '../domain/cfdi/accounting-facts.js';
import { dec, decimalText } from '../domain/money.js';
import {
  SALE_BUCKETS,
  type CfdiGroupRow,
  type DifferenceCode,
  type DifferenceRow,
  type MerchantIssuerRow,
  type RelatedInvoiceRow,
  type SaleBucket,
  type SalesRow,
} from '../repositories/books-summary.js';

export interface CountAndTotal {
  count: number;
  total: string;
}

export type SalesFigures = { currency: string } & Record<SaleBucket, CountAndTotal>;

export interface CfdiFigures {
  cfdi_type: 'I' | 'E' | 'P';
  cancelled: boolean;
  currency: string;
  count: number;
  subtotal: string;
  discount: string;
  taxes: Record<AccountingTaxColumn, string>;
  total: string;
}

export interface RelatedInvoice {
  invoice_id: string;
  invoice_uuid: string | null;
  invoice_total: string | null;
  /** Credit notes or payment complements of the period relating to the invoice, and what they amount to. */
  documents: number;
  amount: string;
  /** Every live one, of any period. */
  amount_all: string;
}

export type SummaryDifferenceCode = DifferenceCode | 'credit_exceeds_invoice' | 'payments_exceed_invoice';

export interface SummaryDifference {
  code: SummaryDifferenceCode;
  message: string;
  qr_id?: string;
  sale_id?: string;
  invoice_id?: string;
  uuid?: string;
}

export interface MerchantSummary {
  merchant_id: string;
  merchant_name: string;
  issuer: { id: string; rfc: string };
  sales: SalesFigures[];
  cfdis: CfdiFigures[];
  credit_notes: RelatedInvoice[];
  payment_complements: (RelatedInvoice & { remaining_balance: string })[];
  differences: SummaryDifference[];
  /** Every difference of the period; more than `differences` holds when a kind had more than the named maximum. */
  differences_total: number;
}

export interface SummaryFigures {
  merchants: MerchantIssuerRow[];
  sales: SalesRow[];
  cfdis: CfdiGroupRow[];
  credited: RelatedInvoiceRow[];
  paid: RelatedInvoiceRow[];
  differences: (DifferenceRow & { total: number })[];
}

const money = (value: string | null) => decimalText(value ?? '0');

function salesFigures(row: SalesRow): SalesFigures {
  const out = { currency: row.currency } as SalesFigures;
  for (const b of SALE_BUCKETS) out[b] = { count: row[`${b}_count`], total: money(row[`${b}_total`]) };
  return out;
}

function cfdiFigures(row: CfdiGroupRow): CfdiFigures {
  const taxes = {} as Record<AccountingTaxColumn, string>;
  for (const t of ACCOUNTING_TAXES) {
    const lines = row.taxes.filter((l) => l.kind === t.kind && l.tax === t.tax);
    taxes[t.column] = money(lines.reduce((sum, l) => sum.plus(l.amount), dec(0)).toString());
  }
  return {
    cfdi_type: row.cfdi_type,
    cancelled: row.cancelled,
    currency: row.currency,
    count: row.count,
    subtotal: money(row.subtotal),
    discount: money(row.discount),
    taxes,
    total: money(row.total),
  };
}

const related = (row: RelatedInvoiceRow): RelatedInvoice => ({
  invoice_id: row.invoice_id,
  invoice_uuid: row.invoice_uuid,
  invoice_total: row.invoice_total === null ? null : money(row.invoice_total),
  documents: row.documents,
  amount: money(row.amount),
  amount_all: money(row.amount_all),
});

const MESSAGES: Record<DifferenceCode, (d: DifferenceRow) => string> = {
  sale_not_reported: (d) => `Sale ${d.sale_id} was neither invoiced nor reported in a global invoice, and its period has closed.`,
  sale_unreportable: (d) => `Sale ${d.sale_id} cannot be reported in a global invoice: its ${d.detail}.`,
  global_invoice_not_stamped: (d) => `Sale ${d.sale_id} is in global invoice ${d.invoice_id}, which is ${d.detail}, not stamped: it is not reported yet.`,
  sale_invoiced_without_invoice: (d) => `Sale ${d.sale_id} is INVOICED but no invoice covers it.`,
  sale_invoiced_and_reported: (d) => `Sale ${d.sale_id} is in a global invoice and also in an invoice to its buyer.`,
  invoice_sale_not_invoiced: (d) => `Invoice ${d.uuid} is valid but its sale ${d.sale_id} is not INVOICED.`,
  global_ticket_count: (d) => `Global invoice ${d.uuid} says ${d.expected} tickets but ${d.actual} sales point at it.`,
  offline_sale_other_period: (d) =>
    `Sale ${d.sale_id} was sold offline at ${d.detail} and arrived after that period closed: it belongs to that period (unclaimed, it is reported in a further global invoice of it).`,
  sale_repeated: (d) =>
    `Sale ${d.sale_id} has several QRs that are not cancelled (${d.detail}): a new QR once the first had expired; an expired one is reported in a global invoice, so check the buyer did not also invoice the sale.`,
};

function namedDifference(d: DifferenceRow): SummaryDifference {
  return {
    code: d.code,
    message: MESSAGES[d.code](d),
    ...(d.qr_id !== null ? { qr_id: d.qr_id } : {}),
    ...(d.sale_id !== null ? { sale_id: d.sale_id } : {}),
    ...(d.invoice_id !== null ? { invoice_id: d.invoice_id } : {}),
    ...(d.uuid !== null ? { uuid: d.uuid } : {}),
  };
}

/** An invoice whose live credit notes (or payments) add up to more than its total. */
function exceeding(rows: RelatedInvoiceRow[], code: 'credit_exceeds_invoice' | 'payments_exceed_invoice'): SummaryDifference[] {
  const what = code === 'credit_exceeds_invoice' ? 'credit notes credit' : 'payment complements pay';
  return rows
    .filter((r) => r.invoice_total !== null && dec(r.amount_all ?? '0').greaterThan(r.invoice_total))
    .map((r) => ({
      code,
      message: `Invoice ${r.invoice_uuid} totals ${money(r.invoice_total)} but its ${what} ${money(r.amount_all)}.`,
      invoice_id: r.invoice_id,
      ...(r.invoice_uuid !== null ? { uuid: r.invoice_uuid } : {}),
    }));
}

/** One summary per merchant (in the order given), every figure of it from `figures`. */
export function periodSummary(figures: SummaryFigures): MerchantSummary[] {
  return figures.merchants.map((m) => {
    const mine = <R extends { merchant_id: string }>(rows: R[]) => rows.filter((r) => r.merchant_id === m.merchant_id);
    const credited = mine(figures.credited);
    const paid = mine(figures.paid);
    const found = mine(figures.differences);
    const differences = [...found.map(namedDifference), ...exceeding(credited, 'credit_exceeds_invoice'), ...exceeding(paid, 'payments_exceed_invoice')];
    const namedTotal = new Map(found.map((d) => [d.code, d.total]));
    return {
      merchant_id: m.merchant_id,
      merchant_name: m.merchant_name,
      issuer: { id: m.issuer_id, rfc: m.issuer_rfc },
      sales: mine(figures.sales).map(salesFigures),
      cfdis: mine(figures.cfdis).map(cfdiFigures),
      credit_notes: credited.map(related),
      payment_complements: paid.map((r) => ({ ...related(r), remaining_balance: money(r.remaining_balance) })),
      differences,
      differences_total: differences.length + [...namedTotal.values()].reduce((sum, n) => sum + n, 0) - found.length,
    };
  });
}
