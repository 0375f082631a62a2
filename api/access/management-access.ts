import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { findApiKeyPrincipal } from '../../shared/repositories/api-keys.js';
import { findTokenAccount } from '../../shared/repositories/access-tokens.js';
import { AppError } from '../../shared/platform/errors.js';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { countAndRead, countHit, rateLimit } from '../middleware/rate-limit.js';
import { principalGenerationKey, startPrincipalGeneration } from '../../shared/platform/principal-generation.js';
import { declareAccess, type AccessMiddleware } from './access.js';
import { PrincipalCache } from './principal-cache.js';

type Deps = Pick<ApiDeps, 'db' | 'redis' | 'config'>;
type Next = () => Promise<unknown>;
type Ctx = Parameters<Middleware<AppState>>[0];

/** Redis keys a route needs read before its first PostgreSQL statement, given the presented key's id. */
export type Prefetch = (ctx: Ctx, presentedKeyId: string) => string[];

/** One principal cache per API (its deps): every router's api-key rule shares it, two apps in one test do not. */
const caches = new WeakMap<Deps, PrincipalCache>();

function principalCache(deps: Deps): PrincipalCache {
  let cache = caches.get(deps);
  if (!cache) caches.set(deps, (cache = new PrincipalCache()));
  return cache;
}

/**
 * The merchant and management API's access rules, each with its rate limits: counted before the credential
 * is checked (a flood of bad credentials costs Redis counters, not PostgreSQL reads) and tied to the route,
 * not to a spelling of its path (issue #28).
 * - api-key: per presented key (`API_KEY_RATE_PER_MIN`, counted by a hash: Redis holds no secret), and
 *   failed keys per client IP (`API_KEY_FAILURES_PER_IP`), checked before a key is looked up in PostgreSQL
 *   (not for a key this process already holds as good): a key guesser is stopped before PostgreSQL is read.
 *   The same pipeline reads the principal generation: a principal cached in this process under it is used
 *   without PostgreSQL (api/access/principal-cache.ts), and the route's own prefetch (`apiKeyPrefetching`);
 * - bearer and client-credentials: per client IP (`MANAGEMENT_RATE_PER_IP`), whatever else the request carries;
 * - api-key-or-bearer: the api-key rule when an `X-API-Key` header is present (a junk key is a wrong key),
 *   else the bearer rule.
 */
export interface ManagementAccess {
  apiKey: AccessMiddleware;
  /** The api-key rule that also reads `prefetch`'s keys in its Redis round trip, into `ctx.state.prefetched`. */
  apiKeyPrefetching(prefetch: Prefetch): AccessMiddleware;
  bearer: AccessMiddleware;
  apiKeyOrBearer: AccessMiddleware;
  clientCredentials: AccessMiddleware;
}

export function managementAccess(deps: Deps): ManagementAccess {
  const perIp = rateLimit(deps.redis, [{ scope: 'mgmt-ip', perMinute: deps.config.managementRatePerIp, key: (ctx) => ctx.ip }]);
  const perKey = [{ scope: 'api-key', perMinute: deps.config.apiKeyRatePerMin, key: (ctx: Ctx) => ctx.state.presentedKeyId }];
  const failuresPerIp = [{ scope: 'key-fail-ip', perMinute: deps.config.apiKeyFailuresPerIp, key: (ctx: Ctx) => ctx.ip, cost: () => 0 }];
  const cache = principalCache(deps);
  const byKey =
    (prefetch?: Prefetch): Middleware<AppState> =>
    async (ctx, next) => {
      const presented = ctx.get('X-API-Key');
      const keyHash = presented ? createHash('sha256').update(presented).digest('base64url') : undefined;
      const keyId = keyHash?.slice(0, 22);
      ctx.state.presentedKeyId = keyId;
      const extra = keyId && prefetch ? prefetch(ctx, keyId) : [];
      const generationKey = keyId ? principalGenerationKey(keyId) : undefined;
      // One round trip: the key's counters, its group's principal generation, the route's reads (all under the
      // key's group tag: one MGET, on one master of a cluster).
      const values = await countAndRead(deps.redis, perKey, ctx, generationKey ? [generationKey, ...extra] : extra);
      const generation = generationKey ? values?.[0] : undefined;
      if (generation === null && keyId) void startPrincipalGeneration(deps.redis, keyId);
      // Only a generation Redis answered validates a cached principal; without one, PostgreSQL answers.
      let principal = keyHash && typeof generation === 'string' ? cache.get(keyHash, generation) : undefined;
      if (!principal) {
        // The failed keys of this client IP guard PostgreSQL's lookup (a key guesser's path), so they are read
        // only before one, and a key this process holds as good costs no per-IP read (issue #40: a POS
        // backend's few addresses made each request's IP counter a key every request read).
        await countAndRead(deps.redis, failuresPerIp, ctx, []);
        if (presented) {
          principal = await findApiKeyPrincipal(deps.db, presented);
          if (principal && keyHash && typeof generation === 'string') cache.set(keyHash, generation, principal);
        }
      }
      if (!principal) {
        if (presented) await countHit(deps.redis, 'key-fail-ip', ctx.ip, ctx.state.log);
        throw new AppError(401, 'unauthorized', presented ? 'The API key is invalid or was revoked.' : 'The X-API-Key header is required.');
      }
      ctx.state.apiKey = principal;
      const prefetched = new Map<string, string | null>();
      const offset = generationKey ? 1 : 0;
      for (const [i, key] of extra.entries()) {
        const value = values?.[i + offset];
        if (value !== undefined) prefetched.set(key, value);
      }
      ctx.state.prefetched = prefetched;
      await next();
    };
  const apiKey = byKey();
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
    apiKey: declareAccess('api-key', apiKey),
    apiKeyPrefetching: (prefetch) => declareAccess('api-key', byKey(prefetch)),
    bearer: declareAccess('bearer', bearer),
    apiKeyOrBearer: declareAccess('api-key-or-bearer', async (ctx, next) => {
      await (ctx.get('X-API-Key') ? apiKey(ctx, next) : bearer(ctx, next));
    }),
    clientCredentials: declareAccess('client-credentials', perIp),
  };
}
