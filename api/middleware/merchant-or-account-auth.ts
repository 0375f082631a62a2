import type { Middleware } from 'koa';
import type { Db } from '../../shared/platform/db.js';
import type { AppState } from '../context.js';
import { apiKeyAuth } from './api-key-auth.js';
import { bearerAuth } from './bearer-auth.js';

/** Invoice downloads and cancellation: the merchant's X-API-Key, or its account's Bearer token (401 when neither is valid). */
export function merchantOrAccountAuth(db: Db): Middleware<AppState> {
  const byKey = apiKeyAuth(db);
  const byToken = bearerAuth(db);
  return async (ctx, next) => {
    await (ctx.get('X-API-Key') ? byKey(ctx, next) : byToken(ctx, next));
  };
}
