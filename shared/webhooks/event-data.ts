import { toJsonNumber } from '../domain/money.js';

/** What an invoice.* event tells of an invoice (an invoices row has these columns). */
export interface InvoiceEventFacts {
  transaction_id: string | null;
  cfdi_type: 'I' | 'E' | 'P';
  uuid: string | null;
  status: string;
  series: string | null;
  folio: string;
  total: string | null;
}

/** The `data` of qr.* events: which sale, as the merchant's POS knows it. */
export function qrEventData(qr: { id: string; sale_id: string; store_uid: string; status: string }): Record<string, unknown> {
  return { qr_id: qr.id, sale_id: qr.sale_id, store_uid: qr.store_uid, status: qr.status };
}

/** The `data` of invoice.* events: the invoice as `GET /v1/qrs/{qrId}` shows it, without links (they are fetched with credentials). */
export function invoiceEventData(invoice: InvoiceEventFacts, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    qr_id: invoice.transaction_id,
    type: invoice.cfdi_type,
    uuid: invoice.uuid,
    status: invoice.status,
    series: invoice.series,
    folio: invoice.folio,
    total: invoice.total === null ? null : toJsonNumber(invoice.total),
    ...extra,
  };
}

/** The `data` of export.ready: which export, what it holds; the download link is fetched with credentials. */
export function exportEventData(e: { id: string; merchant_ids: string[]; files_done: number; size_bytes: string | number | null; expires_at: Date }): Record<string, unknown> {
  return {
    export_id: e.id,
    status: 'READY',
    merchant_ids: e.merchant_ids,
    files: e.files_done,
    size_bytes: e.size_bytes === null ? null : Number(e.size_bytes),
    expires_at: e.expires_at.toISOString(),
  };
}
