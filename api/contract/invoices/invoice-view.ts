import { toJsonNumber } from '../../../shared/domain/money.js';
import type { InvoiceRow } from '../../../shared/repositories/invoices.js';
import { invoiceFileUrl } from '../../../shared/invoices/invoice-links.js';

/** The spec's `invoice` object of a stamped transaction (status: ACTIVE; later states come with cancellation). */
export function invoiceView(invoice: InvoiceRow, ctx: { publicBaseUrl: string; urlSigningKey: string }) {
  const uuid = invoice.uuid ?? '';
  return {
    uuid,
    status: invoice.status,
    series: invoice.series,
    folio: invoice.folio,
    total: toJsonNumber(invoice.total ?? '0'),
    subtotal: toJsonNumber(invoice.subtotal ?? '0'),
    issued_at: (invoice.stamped_at ?? invoice.created_at).toISOString(),
    xml_url: invoiceFileUrl(ctx.publicBaseUrl, uuid, 'xml', ctx.urlSigningKey),
    pdf_url: invoiceFileUrl(ctx.publicBaseUrl, uuid, 'pdf', ctx.urlSigningKey),
  };
}

/** The spec's `customer`: the buyer's tax data on the invoice (the e-mail is not shown to the merchant). */
export function customerView(invoice: InvoiceRow) {
  const c = invoice.customer;
  return { rfc: c.rfc, name: c.name, tax_regime: c.tax_regime, postal_code: c.postal_code };
}
