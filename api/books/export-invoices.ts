/**
 * GET /v1/qrs/invoices/export (issue #32): the CFDIs of a period, one line each, streamed as they are read.
 * PostgreSQL is read in keyset batches (the list's own query and indexes, EXPORT_BATCH rows at a time), each
 * batch asked for only when the response has taken the one before (Readable.from pulls the generator as the
 * socket drains): memory holds one batch whatever the period's size, no transaction or connection is held
 * between batches, and a client that goes away stops the reading.
 */
import { Readable } from 'node:stream';
import { CSV_BOM, CSV_HEADER, csvRow, exportRecord, jsonLine } from '../../shared/books/export-row.js';
import type { Db } from '../../shared/platform/db.js';
import type { Keyset } from '../../shared/platform/keyset-cursor.js';
import { exportInvoices, type BooksScope, type InvoiceFilters } from '../../shared/repositories/books.js';

export const EXPORT_BATCH = 200;

export type ExportFormat = 'csv' | 'jsonl';

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = { csv: 'text/csv; charset=utf-8', jsonl: 'application/jsonl; charset=utf-8' };

async function* exportLines(db: Db, scope: BooksScope, filters: InvoiceFilters, format: ExportFormat): AsyncGenerator<string> {
  if (format === 'csv') yield CSV_BOM + CSV_HEADER;
  let after: Keyset | undefined;
  for (;;) {
    const rows = await exportInvoices(db, scope, filters, after, EXPORT_BATCH);
    if (rows.length === 0) return;
    let chunk = '';
    for (const row of rows) {
      const record = exportRecord(row);
      chunk += format === 'csv' ? csvRow(record) : jsonLine(record);
    }
    yield chunk;
    if (rows.length < EXPORT_BATCH) return;
    after = rows.at(-1)!.key;
  }
}

export function invoiceExportStream(db: Db, scope: BooksScope, filters: InvoiceFilters, format: ExportFormat): Readable {
  return Readable.from(exportLines(db, scope, filters, format), { objectMode: false, highWaterMark: 64 * 1024 });
}
