/**
 * ZIP exports of CFDIs (issue #32, migrations/20261127150000_invoice_exports.ts): the request, its progress, the
 * stored archive and its removal. The filters are kept as JSON (their instants as ISO text) and read back whole.
 */
import type { Db, Trx } from '../platform/db.js';
import type { BooksScope, InvoiceFilters } from './books.js';

export type InvoiceExportStatus = 'PENDING' | 'RUNNING' | 'READY' | 'FAILED';

export interface InvoiceExportRow {
  id: string;
  account_id: string;
  owner: string;
  merchant_ids: string[];
  filters: StoredFilters;
  include_pdf: boolean;
  status: InvoiceExportStatus;
  files_done: number;
  files_total: number | null;
  file_key: string | null;
  size_bytes: string | null;
  failure: string | null;
  idempotency_key: string | null;
  fingerprint: string;
  created_at: Date;
  finished_at: Date | null;
  expires_at: Date;
}

type StoredFilters = Omit<InvoiceFilters, 'from' | 'to'> & { from?: string; to?: string };

/** Who may read an export: the API key's merchant alone, or the bearer account (any of its exports). */
export type ExportReader = { merchantId: string } | { accountId: string };

export const ownerOf = (reader: ExportReader): string => ('merchantId' in reader ? `merchant:${reader.merchantId}` : `account:${reader.accountId}`);

export interface NewInvoiceExport {
  id: string;
  accountId: string;
  reader: ExportReader;
  scope: BooksScope;
  filters: InvoiceFilters;
  includePdf: boolean;
  idempotencyKey: string | undefined;
  fingerprint: string;
  expiresAt: Date;
}

/** The filters the job applies, as the request resolved them. */
export function filtersOf(row: InvoiceExportRow): InvoiceFilters {
  const { from, to, ...rest } = row.filters;
  return { ...rest, ...(from ? { from: new Date(from) } : {}), ...(to ? { to: new Date(to) } : {}) };
}

export function scopeOf(row: InvoiceExportRow): BooksScope {
  return { merchantIds: row.merchant_ids };
}

/** How many exports an account may have building at once, and kept (building or built, not expired) at once. */
export interface ExportLimits {
  inProgress: number;
  kept: number;
}

/** A new export refused past one of the account's limits. */
export class ExportLimitReached extends Error {
  constructor(
    readonly kind: 'in_progress' | 'kept',
    readonly limit: number,
  ) {
    super(`the account has ${limit} exports ${kind === 'in_progress' ? 'being built' : 'kept'}`);
    this.name = 'ExportLimitReached';
  }
}

const NO_LIMITS: ExportLimits = { inProgress: Number.POSITIVE_INFINITY, kept: Number.POSITIVE_INFINITY };

/**
 * Records the export, or (the same idempotency key of the same owner) finds the one recorded before: `created`
 * says which, so only a new one is queued. A new one is refused (ExportLimitReached) past the account's limits (issue #39: a ZIP
 * of a whole history with its PDFs is heavy work and tens of MB kept a week); the account's exports are
 * counted and written under one lock per account, so requests at once cannot pass the limits together.
 */
export async function insertInvoiceExport(db: Db, e: NewInvoiceExport, limits: ExportLimits = NO_LIMITS): Promise<{ row: InvoiceExportRow; created: boolean }> {
  const owner = ownerOf(e.reader);
  const stored: StoredFilters = { ...e.filters, from: e.filters.from?.toISOString(), to: e.filters.to?.toISOString() };
  return db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`invoice-export:${e.accountId}`]);
    if (e.idempotencyKey !== undefined) {
      const earlier = (await trx('invoice_exports').where({ owner, idempotency_key: e.idempotencyKey }).first()) as InvoiceExportRow | undefined;
      if (earlier) return { row: earlier, created: false };
    }
    const { rows } = await trx.raw<{ rows: { in_progress: number; kept: number }[] }>(
      `SELECT count(*) FILTER (WHERE status IN ('PENDING','RUNNING'))::int AS in_progress, count(*) FILTER (WHERE status <> 'FAILED')::int AS kept
       FROM invoice_exports WHERE account_id = ? AND expires_at > now()`,
      [e.accountId],
    );
    const counted = rows[0] ?? { in_progress: 0, kept: 0 };
    if (counted.in_progress >= limits.inProgress) throw new ExportLimitReached('in_progress', limits.inProgress);
    if (counted.kept >= limits.kept) throw new ExportLimitReached('kept', limits.kept);
    const result = await trx.raw<{ rows: InvoiceExportRow[] }>(
      `INSERT INTO invoice_exports (id, account_id, owner, merchant_ids, filters, include_pdf, idempotency_key, fingerprint, expires_at)
       VALUES (?, ?, ?, ?::text[], ?::jsonb, ?, ?, ?, ?) RETURNING *`,
      [e.id, e.accountId, owner, [...e.scope.merchantIds], JSON.stringify(stored), e.includePdf, e.idempotencyKey ?? null, e.fingerprint, e.expiresAt],
    );
    return { row: result.rows[0]!, created: true };
  });
}

/** The exports a reader may see that are still kept, newest first. */
export async function listInvoiceExports(db: Db, reader: ExportReader, limit: number): Promise<InvoiceExportRow[]> {
  const query = db('invoice_exports').where('expires_at', '>', db.fn.now());
  if ('merchantId' in reader) void query.where({ owner: ownerOf(reader) });
  else void query.where({ account_id: reader.accountId });
  return (await query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit)) as InvoiceExportRow[];
}

/** An export its reader may see (an API key: its merchant's own; a bearer token: its account's). */
export async function findInvoiceExport(db: Db, reader: ExportReader, id: string): Promise<InvoiceExportRow | undefined> {
  const query = db('invoice_exports').where({ id });
  if ('merchantId' in reader) void query.where({ owner: ownerOf(reader) });
  else void query.where({ account_id: reader.accountId });
  return (await query.first()) as InvoiceExportRow | undefined;
}

export async function invoiceExportById(db: Db | Trx, id: string): Promise<InvoiceExportRow | undefined> {
  return (await db('invoice_exports').where({ id }).first()) as InvoiceExportRow | undefined;
}

/** The job starts (again, after a crash: from zero): RUNNING with its total. False when it is already finished. */
export async function startInvoiceExport(db: Db, id: string, filesTotal: number): Promise<boolean> {
  const updated = await db('invoice_exports').where({ id }).whereIn('status', ['PENDING', 'RUNNING']).update({ status: 'RUNNING', files_total: filesTotal, files_done: 0 });
  return updated === 1;
}

export async function recordExportProgress(db: Db, id: string, filesDone: number): Promise<void> {
  await db('invoice_exports').where({ id, status: 'RUNNING' }).update({ files_done: filesDone });
}

/** READY with its file, in the caller's transaction (the event goes with it). Undefined when it was not running. */
export async function finishInvoiceExport(trx: Trx, id: string, done: { fileKey: string; sizeBytes: number; filesDone: number }): Promise<InvoiceExportRow | undefined> {
  const [row] = (await trx('invoice_exports')
    .where({ id, status: 'RUNNING' })
    .update({ status: 'READY', file_key: done.fileKey, size_bytes: done.sizeBytes, files_done: done.filesDone, files_total: done.filesDone, finished_at: trx.fn.now() })
    .returning('*')) as InvoiceExportRow[];
  return row;
}

/** FAILED with its reason, in the caller's transaction (the event goes with it). Undefined when it had finished already. */
export async function failInvoiceExport(trx: Db | Trx, id: string, failure: string): Promise<InvoiceExportRow | undefined> {
  const [row] = (await trx('invoice_exports')
    .whereIn('status', ['PENDING', 'RUNNING'])
    .where({ id })
    .update({ status: 'FAILED', failure: failure.slice(0, 500), finished_at: trx.fn.now() })
    .returning('*')) as InvoiceExportRow[];
  return row;
}

/** Exports past their keeping time, oldest first (their files to remove, then their rows). */
export async function expiredInvoiceExports(db: Db, now: Date, limit: number): Promise<Pick<InvoiceExportRow, 'id' | 'file_key'>[]> {
  return (await db('invoice_exports').where('expires_at', '<=', now).orderBy('expires_at').limit(limit).select('id', 'file_key')) as Pick<InvoiceExportRow, 'id' | 'file_key'>[];
}

export async function deleteInvoiceExport(db: Db, id: string): Promise<void> {
  await db('invoice_exports').where({ id }).delete();
}

/** Exports still to build (their job may have been lost with Redis). */
export async function unfinishedInvoiceExportIds(db: Db, limit: number): Promise<string[]> {
  return ((await db('invoice_exports').whereIn('status', ['PENDING', 'RUNNING']).orderBy('created_at').limit(limit).select('id')) as { id: string }[]).map((r) => r.id);
}

/** FAILED exports no operator has let be yet and still kept (issue #38: they need attention). */
const failedUnattended = (db: Db, now: Date) => db('invoice_exports').where({ status: 'FAILED' }).whereNull('given_up_at').where('expires_at', '>', now);

export async function countFailedExports(db: Db, now: Date = new Date()): Promise<number> {
  const row = (await failedUnattended(db, now).count({ n: '*' }).first()) as { n: string | number } | undefined;
  return Number(row?.n ?? 0);
}

export async function listFailedExports(db: Db, limit: number, now: Date = new Date()): Promise<{ id: string; accountId: string; cause: string; since: Date }[]> {
  const rows = (await failedUnattended(db, now).orderBy('finished_at').limit(limit).select('id', 'account_id', 'failure', 'finished_at', 'created_at')) as Pick<
    InvoiceExportRow,
    'id' | 'account_id' | 'failure' | 'finished_at' | 'created_at'
  >[];
  return rows.map((r) => ({ id: r.id, accountId: r.account_id, cause: r.failure ?? '', since: r.finished_at ?? r.created_at }));
}

/** A FAILED export (not given up) back to PENDING, built from zero; the caller queues its job. False when it is not one. */
export async function reopenFailedExport(db: Db, id: string, now: Date = new Date()): Promise<boolean> {
  const changed = await failedUnattended(db, now).where({ id }).update({ status: 'PENDING', failure: null, finished_at: null, files_done: 0, files_total: null });
  return changed === 1;
}

/** The operator lets a FAILED export be: it stays FAILED (its owner asks for a new one) and leaves the attention list. */
export async function giveUpFailedExport(db: Db, id: string, now: Date = new Date()): Promise<boolean> {
  const changed = await failedUnattended(db, now).where({ id }).update({ given_up_at: now });
  return changed === 1;
}
