import { AppError } from '../../shared/platform/errors.js';
import { operatorLogin } from '../admin/operator-login.js';
import type { ApiDeps } from '../deps.js';
import { declareAccess, type AccessMiddleware } from './access.js';

/**
 * The operator's login (HTTP Basic, failed logins throttled per IP); without ADMIN_PASSWORD_HASH the ops
 * pages are off (404). `headers` go on every answer, refusals included.
 */
export function operatorAccess(deps: Pick<ApiDeps, 'config' | 'redis'>, page: string, headers: Record<string, string>): AccessMiddleware {
  const login = operatorLogin(deps);
  return declareAccess('operator', async (ctx, next) => {
    ctx.set(headers);
    if (!login) throw new AppError(404, 'not_found', `The ${page} is off: configure ADMIN_PASSWORD_HASH to serve it.`);
    await login(ctx, next);
  });
}
