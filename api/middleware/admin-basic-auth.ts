import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { verifyAdminPassword, type AdminPasswordHash } from '../../shared/platform/crypto/admin-password.js';
import { AppError } from '../../shared/platform/errors.js';
import type { AppState } from '../context.js';
import type { FailedLoginThrottle } from './failed-login-throttle.js';

export interface AdminCredential {
  user: string;
  passwordHash: AdminPasswordHash;
}

/** RFC 7617 user-pass; undefined for any other scheme (a Bearer token or an API key is no operator login). */
function basicCredentials(header: string): { user: string; password: string } | undefined {
  const encoded = /^Basic +([A-Za-z0-9+/]+={0,2})$/i.exec(header)?.[1];
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Equal-length digests, so the comparison takes the same time whatever was typed. */
function sameText(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

function unauthorized(message: string): AppError {
  return new AppError(401, 'unauthorized', message, { headers: { 'WWW-Authenticate': 'Basic realm="ops"' } });
}

/**
 * HTTP Basic authentication for the operator pages. A request without Basic credentials (a browser's
 * first one) is not counted as a failure; a wrong user or password is.
 */
export function adminBasicAuth(credential: AdminCredential, throttle: FailedLoginThrottle): Middleware<AppState> {
  return async (ctx, next) => {
    const presented = basicCredentials(ctx.get('Authorization'));
    if (!presented) throw unauthorized('Operator credentials (HTTP Basic) are required.');
    // Counted as a failure before it is checked (429 past the limit), given back once it proves right.
    const attempt = await throttle.reserve(ctx);
    // Both checks always run, so the time taken does not tell a wrong user from a wrong password.
    const userMatches = sameText(presented.user, credential.user);
    const passwordMatches = await verifyAdminPassword(presented.password, credential.passwordHash);
    if (!userMatches || !passwordMatches) throw unauthorized('The operator user or password is wrong.');
    await attempt.release();
    await next();
  };
}
