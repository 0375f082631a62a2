import { verifyExportDownloadUrl } from '../../shared/books/export-links.js';
import { AppError } from '../../shared/platform/errors.js';
import { invoiceExportById } from '../../shared/repositories/invoice-exports.js';
import { signedLinkRule } from '../access/access-rules.js';
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
    access: signedLinkRule({
      verify: (params, query, key) => {
        const exportId = /^(exp_[A-Za-z0-9_-]{22})\.zip$/.exec(params.file ?? '')?.[1];
        return exportId === undefined ? undefined : { subject: exportId, check: verifyExportDownloadUrl(exportId, query.exp, query.sig, key) };
      },
      expired: () => new AppError(410, 'link_expired', 'This download link has expired; read the export again for a new one.'),
      invalid: 'This download link is not valid.',
    }),
    rate: [exportDownloadRate],
    operationId: 'downloadInvoiceExport',
    summary: "An export's ZIP (`{exportId}.zip`) through its signed link (`download_url`)",
    responses: {
      200: { description: 'The ZIP', content: binary('application/zip') },
      410: errorResponse('`link_expired`: past its `exp`; `export_removed`: the export was removed after its 7 days'),
    },
    handle: (deps) => async (ctx) => {
      const row = await invoiceExportById(deps.db, ctx.state.signedLink);
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
