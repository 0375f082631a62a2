import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import type { Middleware, ParameterizedContext } from 'koa';
import { QUEUES } from '../../shared/platform/jobs.js';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { operatorLogin } from './operator-login.js';
import { sameOriginWrites } from './same-origin-writes.js';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/**
 * bull-board's page loads its scripts, styles and locale files from its own static route, and styles
 * its loading screen inline. Its Google Fonts stylesheet is taken out of the page (withoutExternalFonts;
 * it falls back to system fonts), so an operator's browser makes no third-party request and reports no
 * CSP violation. Nothing here is cacheable:
 * every answer is job data or sits behind the operator's login. `same-origin`, not `no-referrer`: under
 * the latter a browser may send the page's own writes with `Origin: null`, which sameOriginWrites refuses;
 * no other site learns the page's URL under either.
 */
const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

/** bull-board's page links IBM Plex from fonts.googleapis.com, which the CSP refuses: drop the link. */
function withoutExternalFonts(ctx: Pick<ParameterizedContext, 'body' | 'response'>): void {
  if (typeof ctx.body === 'string' && ctx.response.is('html')) ctx.body = ctx.body.replace(/<link\b[^>]*\bhref="https:\/\/fonts\.googleapis\.com\/[^>]*>\s*/g, '');
}

/**
 * The ops dashboard (issue #8): bull-board over the API's own producer queues, every queue of
 * QUEUES, with its retry, clean and other job actions, behind the operator's Basic login and taking
 * writes from its own page only (a cross-site form post is refused before the login and the board see it). Undefined
 * when no ADMIN_PASSWORD_HASH is configured: the path then answers 404 like any unknown route.
 */
export function queueDashboard(deps: Pick<ApiDeps, 'config' | 'producers' | 'redis'>): Middleware<AppState> | undefined {
  const auth = operatorLogin(deps);
  if (!auth) return undefined;
  const serverAdapter = new KoaAdapter().setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    // Each shard's queue on its own (QUEUE_SHARDS): `s1.stamp` is shard 1's stamp queue; one shard shows the bare names.
    queues: Object.values(QUEUES).flatMap((name) =>
      deps.producers.queues(name).map((queue, shard, all) => new BullMQAdapter(queue, all.length > 1 ? { prefix: `s${shard}.` } : {})),
    ),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Autofactura queues' } },
  });
  const board = serverAdapter.registerPlugin();
  const ownWritesOnly = sameOriginWrites(deps.config.publicBaseUrl);
  return async (ctx, next) => {
    if (ctx.path !== QUEUE_DASHBOARD_PATH && !ctx.path.startsWith(`${QUEUE_DASHBOARD_PATH}/`)) {
      await next();
      return;
    }
    ctx.set(SECURITY_HEADERS);
    await ownWritesOnly(ctx, async () => {
      await auth(ctx, async () => {
        await board(ctx, next);
        withoutExternalFonts(ctx);
      });
    });
  };
}
