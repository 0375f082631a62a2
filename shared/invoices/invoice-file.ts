import type { InvoiceRow } from '../repositories/invoices.js';
import type { FileStore, StoredFile } from '../platform/storage/file-store.js';
import type { InvoiceFileKind } from './invoice-links.js';

export type InvoiceFile = { ok: true; file: StoredFile; fileName: string } | { ok: false; reason: 'not_ready' };

/** The stamped XML, or the PDF once the worker rendered it. */
export async function invoiceFile(files: FileStore, invoice: InvoiceRow, kind: InvoiceFileKind): Promise<InvoiceFile> {
  const key = kind === 'xml' ? invoice.xml_file_key : invoice.pdf_file_key;
  const file = key ? await files.get(key) : undefined;
  if (!file) return { ok: false, reason: 'not_ready' };
  return { ok: true, file, fileName: `${invoice.uuid ?? invoice.id}.${kind}` };
}
