import type { Db } from '../platform/db.js';
import { attachPdf, findInvoiceWithStore, type InvoiceRow } from '../repositories/invoices.js';
import type { StoredFile } from '../platform/storage/file-store.js';
import type { InvoiceFileKind } from './invoice-links.js';
import { renderStampedInvoicePdf, type PdfRendering } from './stamped-invoice-pdf.js';

export type InvoiceFile = { ok: true; file: StoredFile; fileName: string } | { ok: false; reason: 'not_ready' };

export type InvoiceFileDeps = PdfRendering & { db: Db };

/**
 * The stamped XML, or the PDF: the one kept if any (invoices rendered before PDFs were made on demand, or asked
 * for before), else rendered now from the stored XML and kept, so the rendering is paid once. Not ready while
 * the invoice has no stamped XML.
 */
export async function invoiceFile(deps: InvoiceFileDeps, invoice: InvoiceRow, kind: InvoiceFileKind): Promise<InvoiceFile> {
  const fileName = `${invoice.uuid ?? invoice.id}.${kind}`;
  const key = kind === 'xml' ? invoice.xml_file_key : invoice.pdf_file_key;
  const kept = key ? await deps.files.get(key) : undefined;
  if (kept) return { ok: true, file: kept, fileName };
  if (kind === 'xml' || !invoice.xml_file_key) return { ok: false, reason: 'not_ready' };
  const file = await pdfOnce(deps, invoice.id);
  return file ? { ok: true, file, fileName } : { ok: false, reason: 'not_ready' };
}

/** First requests for one invoice's PDF in this process share one rendering. */
const rendering = new Map<string, Promise<StoredFile | undefined>>();

function pdfOnce(deps: InvoiceFileDeps, invoiceId: string): Promise<StoredFile | undefined> {
  let pending = rendering.get(invoiceId);
  if (!pending) {
    pending = renderAndKeep(deps, invoiceId).finally(() => rendering.delete(invoiceId));
    rendering.set(invoiceId, pending);
  }
  return pending;
}

/**
 * Renders the PDF from the stored XML and keeps it. Another process may do the same at the same moment: each
 * stores its own copy and the first to attach its key wins (the other copy is never served). Both are the same
 * bytes, unless the store's logo changed in between.
 */
async function renderAndKeep(deps: InvoiceFileDeps, invoiceId: string): Promise<StoredFile | undefined> {
  const found = await findInvoiceWithStore(deps.db, invoiceId);
  const xmlKey = found?.invoice.xml_file_key;
  if (!found || !xmlKey) return undefined;
  const kept = found.invoice.pdf_file_key ? await deps.files.get(found.invoice.pdf_file_key) : undefined;
  if (kept) return kept;
  const xml = await deps.files.get(xmlKey);
  if (!xml) return undefined;
  const file: StoredFile = { contentType: 'application/pdf', data: await renderStampedInvoicePdf(deps, xml.data, found.store.invoiceLogoUrl) };
  await attachPdf(deps.db, invoiceId, await deps.files.put('invoices', file, 'pdf'));
  return file;
}
