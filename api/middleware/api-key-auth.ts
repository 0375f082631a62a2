import type { Middleware } from 'koa';
import { AppError } from '../../shared/platform/errors.js';
import type { Db } from '../../shared/platform/db.js';
import { findApiKeyPrincipal } from '../../shared/repositories/api-keys.js';
import type { AppState } from '../context.js';

/** X-API-Key authentication for the QR routes: 401 error object when missing, unknown or revoked. */
export function apiKeyAuth(db: Db): Middleware<AppState> {
  return async (ctx, next) => {
    const presented = ctx.get('X-API-Key');
    const principal = presented ? await findApiKeyPrincipal(db, presented) : undefined;
    if (!principal) {
      throw new AppError(401, 'unauthorized', presented ? 'The API key is invalid or was revoked.' : 'The X-API-Key header is required.');
    }
    ctx.state.apiKey = principal;
    await next();
  };
}
