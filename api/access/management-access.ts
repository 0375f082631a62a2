import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { findApiKeyPrincipal } from '../../shared/repositories/api-keys.js';
import { findTokenAccount } from '../../shared/repositories/access-tokens.js';
import { AppError } from '../../shared/platform/errors.js';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { countHit, rateLimit } from '../middleware/rate-limit.js';
import { declareAccess, type AccessMiddleware } from './access.js';

type Deps = Pick<ApiDeps, 'db' | 'redis' | 'config'>;
type Next = () => Promise<unknown>;

/**
 * The merchant and management API's access rules, each with its rate limits: counted before the credential
 * is checked (a flood of bad credentials costs Redis counters, not PostgreSQL reads) and tied to the route,
 * not to a spelling of its path (issue #28).
 * - api-key: per presented key (`API_KEY_RATE_PER_MIN`, counted by a hash: Redis holds no secret), and
 *   failed keys per client IP (`API_KEY_FAILURES_PER_IP`): a key guesser is stopped before PostgreSQL is read;
 * - bearer and client-credentials: per client IP (`MANAGEMENT_RATE_PER_IP`), whatever else the request carries;
 * - api-key-or-bearer: the api-key rule when an `X-API-Key` header is present (a junk key is a wrong key),
 *   else the bearer rule.
 */
export interface ManagementAccess {
  apiKey: AccessMiddleware;
  bearer: AccessMiddleware;
  apiKeyOrBearer: AccessMiddleware;
  clientCredentials: AccessMiddleware;
}

export function managementAccess(deps: Deps): ManagementAccess {
  const perIp = rateLimit(deps.redis, [{ scope: 'mgmt-ip', perMinute: deps.config.managementRatePerIp, key: (ctx) => ctx.ip }]);
  const perKey = rateLimit(deps.redis, [
    { scope: 'api-key', perMinute: deps.config.apiKeyRatePerMin, key: (ctx) => presentedKeyId(ctx.get('X-API-Key')) },
    { scope: 'key-fail-ip', perMinute: deps.config.apiKeyFailuresPerIp, key: (ctx) => ctx.ip, cost: () => 0 },
  ]);
  const byKey: Middleware<AppState> = async (ctx, next) => {
    await perKey(ctx, async () => {
      const presented = ctx.get('X-API-Key');
      const principal = presented ? await findApiKeyPrincipal(deps.db, presented) : undefined;
      if (!principal) {
        if (presented) await countHit(deps.redis, 'key-fail-ip', ctx.ip, ctx.state.log);
        throw new AppError(401, 'unauthorized', presented ? 'The API key is invalid or was revoked.' : 'The X-API-Key header is required.');
      }
      ctx.state.apiKey = principal;
      await next();
    });
  };
  const byToken = async (ctx: Parameters<Middleware<AppState>>[0], next: Next) => {
    const header = ctx.get('Authorization');
    const token = /^Bearer +(\S+)$/i.exec(header)?.[1];
    const account = token ? await findTokenAccount(deps.db, token) : undefined;
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
  const bearer: Middleware<AppState> = async (ctx, next) => {
    await perIp(ctx, () => byToken(ctx, next));
  };
  return {
    apiKey: declareAccess('api-key', byKey),
    bearer: declareAccess('bearer', bearer),
    apiKeyOrBearer: declareAccess('api-key-or-bearer', async (ctx, next) => {
      await (ctx.get('X-API-Key') ? byKey(ctx, next) : bearer(ctx, next));
    }),
    clientCredentials: declareAccess('client-credentials', perIp),
  };
}

function presentedKeyId(presented: string): string | undefined {
  return presented ? createHash('sha256').update(presented).digest('base64url').slice(0, 22) : undefined;
}
