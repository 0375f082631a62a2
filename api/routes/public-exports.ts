import { verifyExportDownloadUrl } from '../../shared/books/export-links.js';
import { AppError } from '../../shared/platform/errors.js';
import { invoiceExportById } from '../../shared/repositories/invoice-exports.js';
import { publicRule } from '../access/access-rules.js';
import { exportDownloadRate } from '../access/rate-rules.js';
import { binary, errorResponse } from '../routing/openapi-parts.js';
import { defineRoute } from '../routing/route.js';

/**
 * GET /v1/public/exports/{exportId}.zip?exp&sig (issue #32): a built export's ZIP through the signed link its
 * GET /v1/qrs/invoices/exports/{exportId} gave: 403 for a forged or altered link, 410 past its `exp` or once the
 * export was removed; 429 past EXPORT_DOWNLOADS_PER_MINUTE for the export (or PUBLIC_RATE_PER_IP for the address).
 * Streamed from the file store (disk and S3 never hold the ZIP whole).
 */
export const publicExportRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/public/exports/{file}',
    access: publicRule,
    rate: [exportDownloadRate],
    operationId: 'downloadInvoiceExport',
    summary: "An export's ZIP (`{exportId}.zip`) through its signed link (`download_url`)",
    parameters: [
      { name: 'exp', in: 'query', required: true, schema: { type: 'integer' }, description: 'Expiry (unix seconds), covered by the signature' },
      { name: 'sig', in: 'query', required: true, schema: { type: 'string' } },
    ],
    responses: {
      200: { description: 'The ZIP', content: binary('application/zip') },
      403: errorResponse('Bad signature'),
      410: errorResponse('`link_expired`: past its `exp`; `export_removed`: the export was removed after its 7 days'),
    },
    handle: (deps) => async (ctx) => {
      const exportId = /^(exp_[A-Za-z0-9_-]{22})\.zip$/.exec(ctx.params.file)?.[1];
      const check = exportId ? verifyExportDownloadUrl(exportId, ctx.query.exp, ctx.query.sig, deps.config.urlSigningKey) : ({ ok: false, reason: 'bad_signature' } as const);
      if (!check.ok) {
        throw check.reason === 'expired'
          ? new AppError(410, 'link_expired', 'This download link has expired; read the export again for a new one.')
          : new AppError(403, 'invalid_signature', 'This download link is not valid.');
      }
      // A valid signature was made for an id the pattern matched.
      const row = exportId ? await invoiceExportById(deps.db, exportId) : undefined;
      const file = row?.file_key && row.expires_at > new Date() ? await deps.files.read(row.file_key) : undefined;
      if (!row || !file) throw new AppError(410, 'export_removed', 'This export was removed; request a new one.');
      ctx.set('Content-Disposition', `attachment; filename="cfdi-${row.created_at.toISOString().slice(0, 10)}-${row.id}.zip"`);
      ctx.set('Cache-Control', 'private, no-store');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.type = file.contentType;
      ctx.length = file.size;
      ctx.body = file.body;
    },
  }),
];
