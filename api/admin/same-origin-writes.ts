import type { Middleware } from 'koa';
import { AppError } from '../../shared/platform/errors.js';
import type { AppState } from '../context.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The origin of an http(s) URL; undefined for `null` (an opaque origin) or anything else unreadable. */
function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes to the ops pages only from their own pages (issue #28): a browser holding the operator's Basic
 * login sends it with any site's form post too. A write (any method but GET, HEAD, OPTIONS) is refused
 * when its Origin (or, without one, its Referer) names another origin than PUBLIC_BASE_URL's or the
 * request's own, and when it carries a body that is not application/json, the one type a cross-site
 * page cannot send without a CORS preflight (which nothing here answers). A write naming no origin at
 * all is no browser's cross-site request (browsers send Origin with every one): curl still works.
 */
export function sameOriginWrites(publicBaseUrl: string): Middleware<AppState> {
  const publicOrigin = originOf(publicBaseUrl);
  return async (ctx, next) => {
    if (!SAFE_METHODS.has(ctx.method)) {
      const claimed = ctx.get('Origin') || ctx.get('Referer');
      if (claimed) {
        const origin = originOf(claimed);
        // Koa 3's ctx.origin is the Origin header itself: the request's own origin is built from its Host.
        const requestOrigin = originOf(`${ctx.protocol}://${ctx.host}`);
        if (origin === undefined || (origin !== publicOrigin && origin !== requestOrigin)) {
          throw new AppError(403, 'cross_origin_refused', 'Writes to the ops pages are accepted from their own pages only.');
        }
      }
      // bull-board's own bodyless PUTs come with Content-Length: 0 and no Content-Type.
      const hasBody = ctx.get('Transfer-Encoding') !== '' || (ctx.request.length ?? 0) > 0;
      if (hasBody && !ctx.is('application/json')) {
        throw new AppError(415, 'unsupported_media_type', 'Content-Type must be application/json.');
      }
    }
    await next();
  };
}
