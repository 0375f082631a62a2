/**
 * The month's XMLs in one download (issue #32): the job that builds an export's ZIP. It reads the export's
 * stamped CFDIs in keyset batches (the list's order and indexes), takes each one's stored XML (and its PDF when
 * asked: the kept one, or rendered now and kept, shared/invoices/invoice-file.ts) and writes it into a ZIP in a
 * temporary file (shared/platform/zip/zip-writer.ts), so memory holds one batch's rows, one file and the ZIP's
 * central directory (~100 bytes an entry), whatever the period's size. The finished file goes to the file store
 * (FileStore.putFile: disk and S3 copy it from the file; PostgreSQL, a bytea, holds it whole and at most 1 GB),
 * the export becomes READY with `export.ready` in the same transaction, and the temporary file is removed.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../platform/db.js';
import type { Keyset } from '../platform/keyset-cursor.js';
import { zipWriter } from '../platform/zip/zip-writer.js';
import { countZipEntries, zipEntries, type ZipEntryRow } from '../repositories/books.js';
import { findInvoice } from '../repositories/invoices.js';
import {
  deleteInvoiceExport,
  expiredInvoiceExports,
  failInvoiceExport,
  filtersOf,
  finishInvoiceExport,
  invoiceExportById,
  recordExportProgress,
  scopeOf,
  startInvoiceExport,
} from '../repositories/invoice-exports.js';
import { emitAccountEvent } from '../webhooks/emit-event.js';
import { CSV_BOM, csvLine } from './export-row.js';
import { decimalText } from '../domain/money.js';
import { exportEventData } from '../webhooks/event-data.js';
import { invoiceFile, type InvoiceFileDeps } from '../invoices/invoice-file.js';

/** Days a built export (its row and its file) is kept before the sweep removes it. */
export const EXPORT_KEEP_DAYS = 7;
/** CFDIs read per batch (and progress written once per batch). */
export const ZIP_BATCH = 100;

export type ZipBuildDeps = InvoiceFileDeps & { db: Db };

export type ZipBuildResult = { outcome: 'ready'; files: number; bytes: number } | { outcome: 'not-running' };

/**
 * What a file name must not hold: path and shell-reserved characters, control characters, and invisible
 * format characters — a right-to-left override in a merchant's serie (`A\u202Egpj.exe`) would show the name
 * reversed in a file manager (issue #39) — and line or paragraph separators.
 */
const UNSAFE_IN_NAME = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}/\\:*?"<>|]/gu;

/** A name part as a file name may hold it: each unsafe character becomes `-`. */
const safe = (text: string) => text.replace(UNSAFE_IN_NAME, '-');

/** `<RFC emisor>_<serie><folio>_<UUID>.xml`, as accountants file them; a cancellation's acuse `…_<UUID>_acuse.xml`. */
export function zipEntryName(row: Pick<ZipEntryRow, 'emitter_rfc' | 'series' | 'folio' | 'uuid'>, kind: 'xml' | 'pdf' | 'acuse'): string {
  const base = `${safe(row.emitter_rfc)}_${safe(`${row.series ?? ''}${row.folio}`)}_${safe(row.uuid)}`;
  return kind === 'acuse' ? `${base}_acuse.xml` : `${base}.${kind}`;
}

/** The ZIP's table of contents, its last entry: what each file is, so a cancelled CFDI is never taken for a valid one. */
export const MANIFEST_NAME = 'manifest.csv';
export const MANIFEST_COLUMNS = ['file', 'uuid', 'cfdi_type', 'status', 'cancelled_at', 'total', 'pdf', 'acuse'] as const;

function manifestLine(entry: ZipEntryRow, pdf: boolean, acuse: boolean): string {
  return csvLine([
    zipEntryName(entry, 'xml'),
    entry.uuid,
    entry.cfdi_type,
    entry.status,
    entry.cancelled_at?.toISOString() ?? null,
    entry.total === null ? null : decimalText(entry.total),
    pdf ? zipEntryName(entry, 'pdf') : null,
    acuse ? zipEntryName(entry, 'acuse') : null,
  ]);
}

export async function buildInvoiceZip(deps: ZipBuildDeps, exportId: string): Promise<ZipBuildResult> {
  const row = await invoiceExportById(deps.db, exportId);
  if (!row || row.status === 'READY' || row.status === 'FAILED') return { outcome: 'not-running' };
  const scope = scopeOf(row);
  const filters = filtersOf(row);
  const perInvoice = row.include_pdf ? 2 : 1;
  if (!(await startInvoiceExport(deps.db, exportId, (await countZipEntries(deps.db, scope, filters)) * perInvoice))) return { outcome: 'not-running' };

  const dir = await mkdtemp(join(tmpdir(), 'invoice-export-'));
  const path = join(dir, 'export.zip');
  const out = createWriteStream(path);
  try {
    const zip = zipWriter(out);
    // ~150 bytes a CFDI, beside the writer's central directory of ~100.
    const manifest = [CSV_BOM + csvLine(MANIFEST_COLUMNS)];
    let done = 0;
    let after: Keyset | undefined;
    for (;;) {
      const batch = await zipEntries(deps.db, scope, filters, after, ZIP_BATCH);
      for (const entry of batch) {
        const xml = await deps.files.get(entry.xml_file_key);
        if (!xml) throw new Error(`invoice export: the stamped XML of ${entry.id} is missing from the file store`);
        await zip.add(zipEntryName(entry, 'xml'), xml.data);
        done++;
        if (row.include_pdf) {
          const invoice = await findInvoice(deps.db, entry.id);
          const pdf = invoice && (await invoiceFile(deps, invoice, 'pdf'));
          if (!pdf?.ok) throw new Error(`invoice export: no PDF for ${entry.id}`);
          await zip.add(zipEntryName(entry, 'pdf'), pdf.file.data);
          done++;
        }
        // A cancelled CFDI goes with SAT's acknowledgement of its cancellation, when the service keeps one.
        const acuse = entry.acuse_file_key ? await deps.files.get(entry.acuse_file_key) : undefined;
        if (acuse) await zip.add(zipEntryName(entry, 'acuse'), acuse.data);
        manifest.push(manifestLine(entry, row.include_pdf, acuse !== undefined));
      }
      if (batch.length > 0) await recordExportProgress(deps.db, exportId, done);
      if (batch.length < ZIP_BATCH) break;
      after = batch.at(-1)!.key;
    }
    await zip.add(MANIFEST_NAME, Buffer.from(manifest.join(''), 'utf8'));
    const bytes = await zip.finish();
    const fileKey = await deps.files.putFile('exports', path, 'application/zip', 'zip');
    const ready = await deps.db.transaction(async (trx) => {
      const finished = await finishInvoiceExport(trx, exportId, { fileKey, sizeBytes: bytes, filesDone: done });
      if (finished) await emitAccountEvent(trx, 'export.ready', finished.account_id, exportEventData(finished));
      return finished;
    });
    if (!ready) {
      await deps.files.remove(fileKey);
      return { outcome: 'not-running' };
    }
    return { outcome: 'ready', files: done, bytes };
  } finally {
    out.destroy(); // a failed attempt's file is closed before it goes (a finished one already is)
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The job's last attempt failed, or the job ended without one (the sweep): the export says FAILED (its reason
 * kept for the operator, not shown) and its account gets `export.failed` (it may ask for the export again).
 */
export async function recordZipFailure(db: Db, exportId: string, err: unknown): Promise<void> {
  await db.transaction(async (trx) => {
    const failed = await failInvoiceExport(trx, exportId, err instanceof Error ? err.message : String(err));
    if (failed) await emitAccountEvent(trx, 'export.failed', failed.account_id, { export_id: failed.id, status: 'FAILED', merchant_ids: failed.merchant_ids });
  });
}

/** Removes the exports past their keeping time, each file before its row (a crash between leaves a row to retry). */
export async function sweepInvoiceExports(deps: Pick<ZipBuildDeps, 'db' | 'files'>, now: Date = new Date()): Promise<number> {
  let removed = 0;
  for (;;) {
    const expired = await expiredInvoiceExports(deps.db, now, 100);
    for (const e of expired) {
      if (e.file_key) await deps.files.remove(e.file_key);
      await deleteInvoiceExport(deps.db, e.id);
      removed++;
    }
    if (expired.length < 100) return removed;
  }
}
