import { toJsonNumber } from '../../../shared/domain/money.js';
import { formatShortCode } from '../../../shared/domain/qr-code/short-code.js';
import type { DocumentTotals } from '../../../shared/domain/cfdi/anexo20-amounts.js';
import { totalsView } from '../invoices/totals-view.js';
import { fixedViewParts, qrTransactionView, type ViewContext } from '../qrs/qr-transaction-view.js';
import { isStamped, type InvoiceRow } from '../../../shared/repositories/invoices.js';
import type { Sale } from '../../../shared/repositories/sales.js';
import { invoiceView } from '../invoices/invoice-view.js';

/** Where the buyer's confirmation stands: stamping, refused (with what to correct) or stamped. */
export function confirmationView(invoice: InvoiceRow | undefined, ctx: ViewContext) {
  if (!invoice) return null;
  return {
    status: invoice.status,
    error: invoice.status === 'REFUSED' ? invoice.refusal : null,
    invoice: isStamped(invoice) ? invoiceView(invoice, ctx) : null,
  };
}

/**
 * An invoice as whoever holds the ticket sees it: that it is stamped, when, and its UUID; never its files
 * (the XML carries the buyer's RFC, name and zip: a thrown-away ticket must not lead to them). The files
 * come from POST /v1/public/qrs/invoice-files with the buyer's RFC, or from the e-mail.
 */
export function buyerInvoiceView(invoice: InvoiceRow) {
  return {
    uuid: invoice.uuid ?? '',
    status: invoice.status,
    series: invoice.series,
    folio: invoice.folio,
    total: toJsonNumber(invoice.total ?? '0'),
    subtotal: toJsonNumber(invoice.subtotal ?? '0'),
    issued_at: (invoice.stamped_at ?? invoice.created_at).toISOString(),
  };
}

/** confirmationView for the buyer's routes: the invoice without its links. */
export function buyerConfirmationView(invoice: InvoiceRow | undefined) {
  if (!invoice) return null;
  return {
    status: invoice.status,
    error: invoice.status === 'REFUSED' ? invoice.refusal : null,
    invoice: isStamped(invoice) ? buyerInvoiceView(invoice) : null,
  };
}

/**
 * What the buyer reviews: who sells and invoices, the concepts with SAT's descriptions, taxes, totals,
 * currency and expiry. Nothing else of the merchant's (no metadata, keys, sale or store ids).
 */
export function buyerSaleView(sale: Sale, totals: DocumentTotals, latest: InvoiceRow | undefined, ctx: ViewContext) {
  const full = qrTransactionView(sale.record, ctx, fixedViewParts(sale.record, ctx));
  return {
    status: full.status,
    expires_at: full.expires_at,
    scanned_at: full.scanned_at,
    merchant: {
      name: sale.merchant.name,
      app_logo_url: sale.merchant.appLogoUrl,
      logo_animation: sale.merchant.logoAnimation,
      support: { email: sale.merchant.contactEmail, phone: sale.merchant.contactPhone },
    },
    issuer: { rfc: sale.issuer.rfc, name: sale.issuer.name },
    currency: full.currency,
    exchange_rate: full.exchange_rate,
    sat_payment_method: full.sat_payment_method,
    sat_payment_method_desc: full.sat_payment_method_desc,
    sat_payment_form: full.sat_payment_form,
    sat_payment_form_desc: full.sat_payment_form_desc,
    operation_data: full.operation_data.map(({ sku: _sku, ...concept }) => concept),
    totals: totalsView(totals),
    confirmation: buyerConfirmationView(latest),
  };
}

/** One ticket of several in one invoice, as the buyer reviews it: which store, when, what, how much. */
export function ticketSummaryView(sale: Sale) {
  const t = sale.record.transaction;
  return {
    short_code: t.short_code ? formatShortCode(t.short_code) : null,
    store_name: sale.merchant.name,
    issued_at: t.issued_local,
    sat_payment_form: t.sat_payment_form,
    amount: toJsonNumber(t.amount),
    currency: t.currency,
    operation_data: sale.record.concepts.map((c) => ({ description: c.description, quantity: toJsonNumber(c.quantity), amount: toJsonNumber(c.amount) })),
  };
}
