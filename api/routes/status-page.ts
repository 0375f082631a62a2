import { readQueueDepths } from '../../shared/platform/queue-depths.js';
import { readStatusFigures } from '../../shared/status/status-figures.js';
import { readPacCredentialsAlarm } from '../../shared/adapters/pac/pac-credentials-alarm.js';
import { readNeedsAttention } from '../../shared/status/needs-attention.js';
import { readOfflineAndExports } from '../../shared/status/offline-and-exports.js';
import { operatorRule } from '../access/access-rules.js';
import { booksPanel } from '../admin/books-panel.js';
import { QUEUE_DASHBOARD_PATH } from '../admin/queue-dashboard.js';
import { ATTENTION_ROWS, renderStatusPage, STATUS_PAGE_CSP } from '../admin/status-page-view.js';
import { errorResponse } from '../routing/openapi-parts.js';
import { defineRoute } from '../routing/route.js';

export const STATUS_PAGE_PATH = '/admin/status';

/** Its answers, the 401 included: operator data, never framed, cached or sniffed. */
const SECURITY_HEADERS = {
  'Content-Security-Policy': STATUS_PAGE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/**
 * GET /admin/status: the operator's status page (what needs attention, QRs per hour, stamp latency and failures, queue depths, and
 * with `merchant` (and `month`, YYYY-MM) that month of the merchant's books added up),
 * behind the queue dashboard's login; off (404) like it when no ADMIN_PASSWORD_HASH is configured. Its figures
 * are read on the replica (deps.readDb): the page is for looking, and may show the replica's lag late.
 */
export const statusPageRoutes = [
  defineRoute({
    method: 'get',
    path: STATUS_PAGE_PATH,
    access: operatorRule('status page', SECURITY_HEADERS),
    operationId: 'getStatusPage',
    summary:
      "The operator's status page (HTML, no script): QRs created, scanned, invoiced and expired per hour, stamp latency and refusals over the last 24 hours, every queue's depth now (see docs/operations.md)",
    responses: {
      200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } },
      404: errorResponse('The status page is off: no ADMIN_PASSWORD_HASH configured'),
    },
    handle: (deps) => async (ctx) => {
      const now = new Date();
      // Redis down: the PostgreSQL figures still show; the page says the queues could not be read.
      const [figures, queues, books, pacCredentials, attention, offlineAndExports] = await Promise.all([
        readStatusFigures(deps.readDb, now),
        readQueueDepths(deps.producers, now.getTime()).catch((err: unknown) => {
          ctx.state.log.warn({ err }, 'queue depths not read');
          return undefined;
        }),
        booksPanel(deps.readDb, ctx.query, now),
        readPacCredentialsAlarm(deps.redis).catch(() => undefined),
        readNeedsAttention(deps.readDb, ATTENTION_ROWS).catch((err: unknown) => {
          ctx.state.log.warn({ err }, 'needs-attention list not read');
          return undefined;
        }),
        readOfflineAndExports(deps.readDb, now).catch((err: unknown) => {
          ctx.state.log.warn({ err }, 'offline tickets and exports not read');
          return undefined;
        }),
      ]);
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = renderStatusPage({ figures, queues, now, queueDashboardPath: QUEUE_DASHBOARD_PATH, books, path: STATUS_PAGE_PATH, pacCredentials, attention, offlineAndExports });
    },
  }),
];
