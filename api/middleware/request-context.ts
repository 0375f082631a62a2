import { randomBytes } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../shared/platform/logger.js';
import type { AppState } from '../context.js';

/**
 * Gives every request an id (the caller's X-Request-Id when it is a sane token, else a new one),
 * echoes it in the X-Request-Id header and logs one line per request with it.
 */
export function requestContext(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    const requestId = /^[A-Za-z0-9._-]{8,64}$/.test(incoming) ? incoming : `req_${randomBytes(12).toString('base64url')}`;
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ request_id: requestId });
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // Path only: query strings may carry signatures. The IP is the client's as TRUST_PROXY defines it.
      ctx.state.log.info({ method: ctx.method, path: ctx.path, status: ctx.status, ip: ctx.ip, ms: Math.round(ms * 100) / 100 }, 'request');
    }
  };
}
