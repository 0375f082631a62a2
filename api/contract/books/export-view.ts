import { exportDownloadUrl, exportLinkExpiry } from '../../../shared/books/export-links.js';
import type { InvoiceExportRow } from '../../../shared/repositories/invoice-exports.js';

export interface ExportLinkKeys {
  publicBaseUrl: string;
  urlSigningKey: string;
}

/** An export as POST and GET /v1/qrs/invoices/exports answer it (export-schema.ts's invoiceExportSchema). */
export function invoiceExportView(row: InvoiceExportRow, keys: ExportLinkKeys, now: Date = new Date()) {
  const ready = row.status === 'READY' && row.expires_at > now;
  const f = row.filters;
  return {
    export_id: row.id,
    status: row.status,
    include_pdf: row.include_pdf,
    merchant_ids: row.merchant_ids,
    files_done: row.files_done,
    files_total: row.files_total,
    size_bytes: row.size_bytes === null ? null : Number(row.size_bytes),
    created_at: row.created_at.toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
    expires_at: row.expires_at.toISOString(),
    download_url: ready ? exportDownloadUrl(keys.publicBaseUrl, row.id, keys.urlSigningKey, row.expires_at, undefined, now) : null,
    download_expires_at: ready ? exportLinkExpiry(row.expires_at, undefined, now).toISOString() : null,
    // What it holds (issue #39: an export did not say its period).
    period: { from: f.from ?? null, to: f.to ?? null },
    filters: {
      status: f.statuses ?? [],
      cfdi_type: f.cfdiType ?? null,
      receptor_rfc: f.receptorRfc ?? null,
      uuid: f.uuid ?? null,
      series: f.series ?? null,
      folio: f.folio ?? null,
      store_uid: f.storeUid ?? null,
      sale_id: f.saleId ?? null,
    },
  };
}
