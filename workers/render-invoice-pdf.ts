/**
 * render-invoice-pdf: the printed representation of a stamped CFDI, drawn from the stamped XML itself
 * (the source of truth) with the merchant's invoice logo; stored, then the e-mail to the buyer is queued.
 */
import { UnrecoverableError, type Job } from 'bullmq';
import type { Db } from '../shared/platform/db.js';
import { enqueueInvoiceEmail } from '../shared/invoices/enqueue-follow-ups.js';
import type { InvoicePayload } from '../shared/platform/jobs.js';
import { invoicePdfDataFromXml } from '../shared/pdf/invoice-pdf-data.js';
import { renderInvoicePdf } from '../shared/pdf/render-invoice-pdf.js';
import type { Producers } from '../shared/platform/queues.js';
import { attachPdf, findInvoiceWithStore } from '../shared/repositories/invoices.js';
import type { SatCatalogs } from '../shared/sat/catalogs.js';
import { fileKeyFromUrl, type FileStore } from '../shared/platform/storage/file-store.js';
import { crashAfterCommit } from '../shared/platform/crash-after-commit.js';

export interface PdfDeps {
  db: Db;
  files: FileStore;
  catalogs: SatCatalogs;
  producers: Producers;
  publicBaseUrl: string;
}

export async function renderInvoicePdfJob(deps: PdfDeps, job: Job<InvoicePayload>): Promise<{ pdfFileKey: string; qrId: string | null; uuid: string | null }> {
  const found = await findInvoiceWithStore(deps.db, job.data.invoiceId);
  const xmlFileKey = found?.invoice.xml_file_key;
  if (!found || !xmlFileKey) throw new UnrecoverableError(`invoice ${job.data.invoiceId} is not stamped`);
  const { invoice, store } = found;
  let pdfFileKey = invoice.pdf_file_key;
  if (!pdfFileKey) {
    const xml = await deps.files.get(xmlFileKey);
    if (!xml) throw new UnrecoverableError(`the XML of invoice ${invoice.id} is missing from storage`);
    const logoKey = fileKeyFromUrl(deps.publicBaseUrl, store.invoiceLogoUrl);
    const logo = logoKey ? (await deps.files.get(logoKey))?.data : undefined;
    const pdf = await renderInvoicePdf(invoicePdfDataFromXml(xml.data.toString('utf8'), deps.catalogs), { logo });
    pdfFileKey = await deps.files.put('invoices', { contentType: 'application/pdf', data: pdf }, 'pdf');
    await attachPdf(deps.db, invoice.id, pdfFileKey);
    crashAfterCommit('pdf-attached');
  }
  // A global invoice (público en general) has nobody to write to.
  if (!invoice.email_sent_at && !invoice.email_refused_at && invoice.customer.email) await enqueueInvoiceEmail(deps.producers, invoice.id);
  return { pdfFileKey, qrId: invoice.transaction_id, uuid: invoice.uuid };
}
