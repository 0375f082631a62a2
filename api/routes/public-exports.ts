import type { Router } from '@koa/router';
import { verifyExportDownloadUrl } from '../../shared/books/export-links.js';
import { AppError } from '../../shared/platform/errors.js';
import { invoiceExportById } from '../../shared/repositories/invoice-exports.js';
import { PUBLIC_ACCESS } from '../access/public-access.js';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { apiRouter, routesWith } from '../routing/api-router.js';
import { rateLimit } from '../middleware/rate-limit.js';

/**
 * GET /v1/public/exports/{exportId}.zip?exp&sig (issue #32): a built export's ZIP through the signed link its
 * GET /v1/qrs/invoices/exports/{exportId} gave: 403 for a forged or altered link, 410 past its `exp` or once the
 * export was removed; 429 past EXPORT_DOWNLOADS_PER_MINUTE for the export (or PUBLIC_RATE_PER_IP for the address).
 * Streamed from the file store (disk and S3 never hold the ZIP whole).
 */
export function publicExportRoutes(deps: ApiDeps): Router<AppState> {
  const router = apiRouter('/v1/public/exports');
  const routes = routesWith(router, PUBLIC_ACCESS);
  // A link needs no credentials, so whoever holds it could pull a large file without end (issue #39).
  const limited = rateLimit(deps.redis, [
    { scope: 'ip', perMinute: deps.config.publicRatePerIp, key: (ctx) => ctx.ip },
    { scope: 'export', perMinute: deps.config.exportDownloadsPerMinute, key: (ctx) => ctx.path.slice(-48) },
  ]);
  routes.get('/:file', limited, async (ctx) => {
    const exportId = /^(exp_[A-Za-z0-9_-]{22})\.zip$/.exec(ctx.params.file ?? '')?.[1];
    const check = exportId ? verifyExportDownloadUrl(exportId, ctx.query.exp, ctx.query.sig, deps.config.urlSigningKey) : ({ ok: false, reason: 'bad_signature' } as const);
    if (!check.ok) {
      throw check.reason === 'expired'
        ? new AppError(410, 'link_expired', 'This download link has expired; read the export again for a new one.')
        : new AppError(403, 'invalid_signature', 'This download link is not valid.');
    }
    const row = await invoiceExportById(deps.db, exportId!);
    const file = row?.file_key && row.expires_at > new Date() ? await deps.files.read(row.file_key) : undefined;
    if (!row || !file) throw new AppError(410, 'export_removed', 'This export was removed; request a new one.');
    ctx.set('Content-Disposition', `attachment; filename="cfdi-${row.created_at.toISOString().slice(0, 10)}-${row.id}.zip"`);
    ctx.set('Cache-Control', 'private, no-store');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = file.contentType;
    ctx.length = file.size;
    ctx.body = file.body;
  });
  return router;
}
