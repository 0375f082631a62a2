import { decimalText } from '../../../shared/domain/money.js';
import type { InvoiceListRow, QrListRow } from '../../../shared/repositories/books.js';

const money = (value: string | null) => (value === null ? null : decimalText(value));

/** A QR transaction as GET /v1/qrs lists it (books-schema.ts's qrSummarySchema). */
export function qrSummaryView(row: QrListRow) {
  return {
    qr_id: row.id,
    merchant_id: row.merchant_id,
    mode: row.mode,
    store_uid: row.store_uid,
    sale_id: row.sale_id,
    operation: row.operation,
    status: row.status,
    amount: decimalText(row.amount),
    subtotal: decimalText(row.subtotal),
    currency: row.currency,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    scanned_at: row.scanned_at?.toISOString() ?? null,
    invoice: row.invoice_status === null ? null : { uuid: row.invoice_uuid, status: row.invoice_status },
    global_invoice_uuid: row.global_invoice_uuid,
    sold_at: row.sold_at?.toISOString() ?? null,
  };
}

/** A CFDI as GET /v1/qrs/invoices lists it (books-schema.ts's invoiceSummarySchema). */
export function invoiceSummaryView(row: InvoiceListRow) {
  return {
    id: row.id,
    merchant_id: row.merchant_id,
    kind: row.kind,
    cfdi_type: row.cfdi_type,
    status: row.status,
    uuid: row.uuid,
    series: row.series,
    folio: row.folio,
    receptor: { rfc: row.receptor_rfc, name: row.receptor_name },
    subtotal: money(row.subtotal),
    discount: money(row.discount),
    total: money(row.total),
    created_at: row.created_at.toISOString(),
    stamped_at: row.stamped_at?.toISOString() ?? null,
    sales: row.sales,
    global_tickets: row.global_tickets,
  };
}
