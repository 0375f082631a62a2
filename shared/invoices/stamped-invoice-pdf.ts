import { invoicePdfDataFromXml } from '../pdf/invoice-pdf-data.js';
import { renderInvoicePdf } from '../pdf/render-invoice-pdf.js';
import type { SatCatalogs } from '../sat/catalogs.js';
import { fileKeyFromUrl, type FileStore } from '../platform/storage/file-store.js';

export interface PdfRendering {
  files: FileStore;
  catalogs: SatCatalogs;
  publicBaseUrl: string;
}

/**
 * The printed representation of a stamped CFDI, drawn from its stamped XML (the legal document, the source
 * of truth) with the store's invoice logo as it is now. Deterministic: the same XML and logo give the same
 * bytes (test/shared/pdf/render-invoice-pdf.test.ts), so a PDF is never needed until someone asks for it: the
 * e-mail renders one to attach, a download renders and keeps one (shared/invoices/invoice-file.ts).
 */
export async function renderStampedInvoicePdf(deps: PdfRendering, xml: Buffer, invoiceLogoUrl: string | null): Promise<Buffer> {
  const logoKey = fileKeyFromUrl(deps.publicBaseUrl, invoiceLogoUrl);
  const logo = logoKey ? (await deps.files.get(logoKey))?.data : undefined;
  return renderInvoicePdf(invoicePdfDataFromXml(xml.toString('utf8'), deps.catalogs), { logo });
}
