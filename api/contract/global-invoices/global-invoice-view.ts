import type { FromSchema } from 'json-schema-to-ts';
import { invoiceFileUrl } from '../../../shared/invoices/invoice-links.js';
import { toJsonNumber } from '../../../shared/domain/money.js';
import type { GlobalInvoiceListRow } from '../../../shared/repositories/global-invoices.js';
import type { globalInvoiceSchema } from './global-invoice-schema.js';

// Typed from the schema the OpenAPI document publishes: the compiler holds the view to it.
export type GlobalInvoice = FromSchema<typeof globalInvoiceSchema>;

/** GlobalInvoice: the period, the group it reports, and the CFDI (uuid and links once stamped). */
export function globalInvoiceView(g: GlobalInvoiceListRow, ctx: { publicBaseUrl: string; urlSigningKey: string }): GlobalInvoice {
  const invoice = g;
  const uuid = invoice.uuid;
  return {
    id: g.invoice_id,
    status: invoice.status,
    uuid,
    series: invoice.series,
    folio: invoice.folio,
    merchant_id: g.merchant_id,
    periodicity: g.periodicity,
    period_start: new Date(g.period_start).toISOString(),
    period_end: new Date(g.period_end).toISOString(),
    sat_payment_form: g.payment_form,
    sat_payment_method: g.payment_method,
    part: g.part,
    tickets: g.tickets,
    total: invoice.total === null ? null : toJsonNumber(invoice.total),
    error: invoice.status === 'REFUSED' ? invoice.refusal : null,
    xml_url: uuid ? invoiceFileUrl(ctx.publicBaseUrl, uuid, 'xml', ctx.urlSigningKey) : null,
    pdf_url: uuid ? invoiceFileUrl(ctx.publicBaseUrl, uuid, 'pdf', ctx.urlSigningKey) : null,
  };
}
