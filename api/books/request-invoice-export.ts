/**
 * POST /v1/qrs/invoices/exports (issue #32): records the export of a period's CFDIs as a ZIP and queues the job
 * that builds it (shared/books/invoice-zip.ts). An Idempotency-Key makes a retried POST answer the export it
 * recorded (the same body) or 409 (another body); the key is its owner's (an API key's merchant, or a bearer
 * account), as the record itself says (migrations/20261127150000_invoice_exports.ts).
 */
import { EXPORT_KEEP_DAYS } from '../../shared/books/invoice-zip.js';
import { AppError } from '../../shared/platform/errors.js';
import { newId } from '../../shared/platform/ids.js';
import { requestFingerprint } from '../../shared/platform/idempotency/request-fingerprint.js';
import { ExportLimitReached, insertInvoiceExport, type ExportReader, type InvoiceExportRow } from '../../shared/repositories/invoice-exports.js';
import { credentialsScope, type ApiKeyOrBearerGrant } from '../access/access-rules.js';
import type { ApiDeps } from '../deps.js';
import { booksScope, zipExportRequest } from './books-request.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whose exports these credentials read: an API key's merchant's (those it asked for), a bearer token's account's. */
export function exportReader(ctx: { state: ApiKeyOrBearerGrant }): ExportReader {
  return credentialsScope(ctx.state);
}

export async function requestInvoiceExport(
  deps: Pick<ApiDeps, 'db' | 'producers' | 'config'>,
  ctx: { state: ApiKeyOrBearerGrant },
  rawBody: unknown,
  idempotencyKey: string | undefined,
): Promise<InvoiceExportRow> {
  if (idempotencyKey !== undefined && !UUID.test(idempotencyKey)) {
    throw new AppError(400, 'validation_failed', 'The request has invalid or missing fields.', {
      details: [{ field: 'Idempotency-Key', code: 'invalid_format', message: 'Idempotency-Key must be a UUID.' }],
    });
  }
  const { body, filters } = zipExportRequest(rawBody);
  const scope = await booksScope(deps, ctx, body.merchant_id);
  const fingerprint = requestFingerprint({ ...body, include_pdf: body.include_pdf ?? false }, {});
  let inserted;
  try {
    inserted = await insertInvoiceExport(
      deps.db,
      {
        id: newId('invoiceExport'),
        accountId: ctx.state.apiKey ? ctx.state.apiKey.accountId : ctx.state.accountId,
        reader: exportReader(ctx),
        scope,
        filters,
        includePdf: body.include_pdf ?? false,
        idempotencyKey: idempotencyKey?.toLowerCase(),
        fingerprint,
        expiresAt: new Date(Date.now() + EXPORT_KEEP_DAYS * 86_400_000),
      },
      { inProgress: deps.config.exportsInProgressPerAccount, kept: deps.config.exportsKeptPerAccount },
    );
  } catch (err) {
    if (!(err instanceof ExportLimitReached)) throw err;
    throw err.kind === 'in_progress'
      ? new AppError(429, 'export_limit_reached', `This account already has ${err.limit} exports being built; ask again once one is READY.`, { headers: { 'Retry-After': '60' } })
      : new AppError(429, 'export_limit_reached', `This account keeps ${err.limit} exports (each for ${EXPORT_KEEP_DAYS} days); ask again once one is removed.`, {
          headers: { 'Retry-After': '3600' },
        });
  }
  const { row, created } = inserted;
  if (!created && row.fingerprint !== fingerprint) {
    throw new AppError(409, 'idempotency_key_reused', 'This Idempotency-Key was already used with another export; use a new key for a new export.');
  }
  // Queued on every answer: a replay re-queues a job Redis lost (the job id makes it a no-op otherwise).
  if (row.status === 'PENDING' || row.status === 'RUNNING') await deps.producers.add('build-invoice-export', { exportId: row.id });
  return row;
}
