import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { rateLimit } from './rate-limit.js';

/** The merchant and management API: everything under /v1 and /api/v1 except the buyer's public routes (limited on their own, stricter). */
const LIMITED = /^\/(api\/)?v1\/(?!public\/)/;

/**
 * Issue #8: per API key on requests that carry one (the POS backends: `API_KEY_RATE_PER_MIN`), per client
 * IP on the others (bearer-token management and POST /v1/auth/token: `MANAGEMENT_RATE_PER_IP`). Counted
 * before authentication, so a flood of invalid keys costs Redis counters, not PostgreSQL reads… per key:
 * the key is counted by a hash of what was presented (never the key itself: Redis holds no secret).
 */
export function clientRateLimits(deps: Pick<ApiDeps, 'redis' | 'config'>): Middleware<AppState> {
  const limited = rateLimit(deps.redis, [
    { scope: 'api-key', perMinute: deps.config.apiKeyRatePerMin, key: (ctx) => presentedKeyId(ctx.get('X-API-Key')) },
    { scope: 'mgmt-ip', perMinute: deps.config.managementRatePerIp, key: (ctx) => (ctx.get('X-API-Key') ? undefined : ctx.ip) },
  ]);
  return async (ctx, next) => {
    await (LIMITED.test(ctx.path) ? limited(ctx, next) : next());
  };
}

function presentedKeyId(presented: string): string | undefined {
  return presented ? createHash('sha256').update(presented).digest('base64url').slice(0, 22) : undefined;
}
