import type { Middleware } from 'koa';
import { parseAdminPasswordHash } from '../../shared/platform/crypto/admin-password.js';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { adminBasicAuth } from '../middleware/admin-basic-auth.js';
import { failedLoginThrottle } from '../middleware/failed-login-throttle.js';

const FAILED_LOGIN_WINDOW_SECONDS = 15 * 60;

/**
 * The operator's login to the ops pages (/admin/queues, /admin/status): HTTP Basic against ADMIN_USER and
 * ADMIN_PASSWORD_HASH, and one count of failed logins per client IP for all of them. Undefined when no
 * password hash is configured: the pages are then off.
 */
export function operatorLogin(deps: Pick<ApiDeps, 'config' | 'redis'>): Middleware<AppState> | undefined {
  if (!deps.config.adminPasswordHash) return undefined;
  return adminBasicAuth(
    { user: deps.config.adminUser, passwordHash: parseAdminPasswordHash(deps.config.adminPasswordHash) },
    failedLoginThrottle(deps.redis, 'admin-login', deps.config.adminLoginFailuresPerIp, FAILED_LOGIN_WINDOW_SECONDS),
  );
}
