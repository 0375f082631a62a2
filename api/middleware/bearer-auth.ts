import type { Middleware } from 'koa';
import type { Db } from '../../shared/platform/db.js';
import { AppError } from '../../shared/platform/errors.js';
import { findTokenAccount } from '../../shared/repositories/access-tokens.js';
import type { AppState } from '../context.js';

/** Authorization: Bearer for the management routes: 401 error object when missing, unknown, expired or revoked. */
export function bearerAuth(db: Db): Middleware<AppState> {
  return async (ctx, next) => {
    const header = ctx.get('Authorization');
    const token = /^Bearer +(\S+)$/i.exec(header)?.[1];
    const account = token ? await findTokenAccount(db, token) : undefined;
    if (!account) {
      throw new AppError(
        401,
        'unauthorized',
        header ? 'The access token is invalid, expired or revoked; get a new one from POST /v1/auth/token.' : 'An Authorization: Bearer <access token> header is required.',
        { headers: { 'WWW-Authenticate': 'Bearer' } },
      );
    }
    ctx.state.accountId = account.accountId;
    await next();
  };
}
