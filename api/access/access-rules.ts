import type { Middleware } from 'koa';
import { AppError } from '../../shared/platform/errors.js';
import type { SignedLinkCheck } from '../../shared/platform/crypto/signed-expiry-link.js';
import type { AppContext, MultipartForm, AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import type { ApiKeyPrincipal } from '../../shared/repositories/api-keys.js';
import { declareAccess, type AccessMiddleware } from './access.js';
import { managementAccess, type Prefetch } from './management-access.js';
import { metricsAccess } from './metrics-access.js';
import { operatorAccess } from './operator-access.js';
import { PUBLIC_ACCESS } from './public-access.js';

/** An OpenAPI security requirement: the scheme's name in components.securitySchemes. */
export type SecurityRequirement = Readonly<Partial<Record<'ApiKey' | 'Bearer' | 'MetricsToken' | 'OperatorLogin', readonly []>>>;

/**
 * A route's access rule as a route declares it: the middleware that enforces it (built from the API's deps),
 * what the OpenAPI document says of it (its security requirements, its refusal), and, as a type, what it puts
 * on `ctx.state` for the handler once it let the request through (`G`).
 */
export interface AccessRule<G extends object> {
  readonly name: string;
  readonly security: readonly SecurityRequirement[];
  /** The 401 every route it guards documents, unless the route says more precisely why. */
  readonly unauthorized?: string;
  /** The limits it counts before the credential is checked, for the document's 429. */
  readonly tooMany?: string;
  /** The 403 every route it guards documents: a credential it refuses as not valid rather than absent. */
  readonly forbidden?: string;
  /** The request's parameters it reads (after the route's own in the document). */
  readonly parameters?: readonly Readonly<Record<string, unknown>>[];
  middleware(deps: ApiDeps): AccessMiddleware;
  /** Never set: carries `G` for the type checker. */
  readonly grants?: G;
}

/** The api-key rule's state: the merchant's principal, the presented key's id, what its Redis round trip read. */
export interface ApiKeyGrant {
  apiKey: ApiKeyPrincipal;
  presentedKeyId: string;
  prefetched: ReadonlyMap<string, string | null>;
}
/** The bearer rule's state: the account every management route is scoped to. */
export interface BearerGrant {
  accountId: string;
}
/** Either, told apart by `apiKey`. */
export type ApiKeyOrBearerGrant = ApiKeyGrant | (BearerGrant & { apiKey?: undefined });
/** The signed-link rule's state: what the link names, its signature and expiry checked. */
export interface SignedLinkGrant<T> {
  signedLink: T;
}
/** A route with a multipart body: its parsed form. */
export interface FormGrant {
  form: MultipartForm;
}

const API_KEY = [{ ApiKey: [] }] as const;
const BEARER = [{ Bearer: [] }] as const;
const MANAGEMENT_RATE = 'MANAGEMENT_RATE_PER_IP requests a minute from the address';
const API_KEY_RATE = 'API_KEY_RATE_PER_MIN requests a minute for the key, API_KEY_FAILURES_PER_IP failed keys from the address';

export const apiKeyRule: AccessRule<ApiKeyGrant> = {
  name: 'api-key',
  security: API_KEY,
  unauthorized: 'API key invalid or missing',
  tooMany: API_KEY_RATE,
  middleware: (deps) => managementAccess(deps).apiKey,
};

/** The api-key rule that also reads `prefetch`'s keys in its Redis round trip, into `ctx.state.prefetched`. */
export function apiKeyPrefetchingRule(prefetch: Prefetch): AccessRule<ApiKeyGrant> {
  return { ...apiKeyRule, middleware: (deps) => managementAccess(deps).apiKeyPrefetching(prefetch) };
}

export const bearerRule: AccessRule<BearerGrant> = {
  name: 'bearer',
  security: BEARER,
  unauthorized: 'Token invalid',
  tooMany: MANAGEMENT_RATE,
  middleware: (deps) => managementAccess(deps).bearer,
};

export const apiKeyOrBearerRule: AccessRule<ApiKeyOrBearerGrant> = {
  name: 'api-key-or-bearer',
  security: [...API_KEY, ...BEARER],
  unauthorized: 'No valid API key or token',
  tooMany: `${API_KEY_RATE}; with a bearer token, ${MANAGEMENT_RATE}`,
  middleware: (deps) => managementAccess(deps).apiKeyOrBearer,
};

/** POST /v1/auth/token's: no credential but the client's own in the body, rate-limited per IP. */
export const clientCredentialsRule: AccessRule<object> = {
  name: 'client-credentials',
  security: [],
  tooMany: MANAGEMENT_RATE,
  middleware: (deps) => managementAccess(deps).clientCredentials,
};

export const publicRule: AccessRule<object> = { name: 'public', security: [], middleware: () => PUBLIC_ACCESS };

export const metricsRule: AccessRule<object> = {
  name: 'metrics-token',
  security: [{ MetricsToken: [] }],
  unauthorized: 'No or wrong metrics token',
  middleware: (deps) => metricsAccess(deps),
};

/** A link signed by the service, how one route reads and checks it. */
export interface SignedLink<T> {
  /** What the path's parameters name, with the check of the link's `exp` and `sig`; undefined for a path no link names. */
  verify(params: Record<string, string>, query: Record<string, unknown>, key: string): { subject: T; check: SignedLinkCheck } | undefined;
  /** The 410 of a link past its `exp`. */
  expired: () => AppError;
  /** The 403's message: a link the service did not sign, or altered. */
  invalid: string;
}

/**
 * A link the service signed (URL_SIGNING_KEY) with its expiry, `exp` and `sig` in the query: the link is the
 * credential. 403 `invalid_signature` for a forged or altered one, 410 past its `exp`; the handler gets
 * what it names as `ctx.state.signedLink`.
 */
export function signedLinkRule<T>(link: SignedLink<T>): AccessRule<SignedLinkGrant<T>> {
  return {
    name: 'signed-link',
    security: [],
    forbidden: '`invalid_signature`: a link the service did not sign, or altered',
    parameters: [
      { name: 'exp', in: 'query', required: true, schema: { type: 'integer' }, description: 'Expiry (unix seconds), covered by the signature' },
      { name: 'sig', in: 'query', required: true, schema: { type: 'string' } },
    ],
    middleware: (deps) =>
      declareAccess('signed-link', async (ctx, next) => {
        // An access rule runs on a route: the router has set its parameters.
        const found = link.verify((ctx as AppContext).params, ctx.query, deps.config.urlSigningKey);
        const check = found?.check ?? { ok: false, reason: 'bad_signature' };
        if (!check.ok) {
          throw check.reason === 'expired' ? link.expired() : new AppError(403, 'invalid_signature', link.invalid);
        }
        ctx.state.signedLink = found?.subject;
        await next();
      }),
  };
}

/** The operator's login, `headers` on every answer (refusals included); `page` names what is off without a password. */
export function operatorRule(page: string, headers: Record<string, string>): AccessRule<object> {
  return {
    name: 'operator',
    security: [{ OperatorLogin: [] }],
    unauthorized: 'No or wrong operator login (WWW-Authenticate: Basic)',
    tooMany: 'ADMIN_LOGIN_FAILURES_PER_IP failed logins from the address in 15 minutes',
    middleware: (deps) => operatorAccess(deps, page, headers),
  };
}

/** The same rule with a step before it that must see every request, refusals included (e.g. deprecation headers). */
export function precededRule<G extends object>(step: (deps: ApiDeps) => Middleware<AppState>, rule: AccessRule<G>): AccessRule<G> {
  return {
    ...rule,
    middleware: (deps) => {
      const first = step(deps);
      const access = rule.middleware(deps);
      return declareAccess(rule.name, async (ctx, next) => {
        await first(ctx, async () => {
          await access(ctx, next);
        });
      });
    },
  };
}

/** What api-key-or-bearer credentials may see: the API key's merchant, or the bearer token's account. */
export function credentialsScope(state: ApiKeyOrBearerGrant): { merchantId: string } | { accountId: string } {
  return state.apiKey ? { merchantId: state.apiKey.merchantId } : { accountId: state.accountId };
}
