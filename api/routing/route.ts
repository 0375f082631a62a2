import type { Middleware } from 'koa';
import type { AccessRule, FormGrant } from '../access/access-rules.js';
import type { RateRule } from '../access/rate-rules.js';
import type { AppContext, AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import type { JsonRequest } from './request-body.js';
import type { QueryRequest } from './request-query.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The names of a path template's parameters: '/v1/qrs/{qrId}' → 'qrId'. */
export type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | ParamNames<Rest> : never;

/** The context a handler gets: the state its access rule (and its form, if any) guarantees, its path's parameters. */
export type RouteContext<G extends object, P extends string> = AppContext & { state: AppState & G; params: Record<ParamNames<P>, string> };

/** An OpenAPI object as the document writes it (schemas, parameters, answers): JSON, checked by Redocly and the snapshot. */
export type OpenApiObject = Record<string, unknown>;

/** What the OpenAPI document says of the operation, but its security (the access rule's) and its operationId. */
export interface OperationDocs {
  summary: string;
  description?: string;
  tags?: string[];
  deprecated?: boolean;
  /** Header and query parameters, and path parameters that say more than their name; the others are derived from the path. */
  parameters?: OpenApiObject[];
  requestBody?: OpenApiObject;
  /**
   * By status; the 401 comes from the access rule unless given here, the 429 from the access and rate rules
   * (a 429 given here says what else the route itself refuses with it).
   */
  responses: Record<number, OpenApiObject>;
}

/** A multipart body's limits. */
export interface FormSpec {
  maxFileBytes: number;
  maxFiles: number;
}

/** The validated JSON body, when the route declares one. */
interface BodyGrant<B> {
  body: B;
}
/** The parsed query, when the route declares one. */
interface QueryGrant<Q> {
  query: Q;
}

/** The state a handler gets: its access rule's, the form or the validated body, the parsed query, when the route declares them. */
type StateOf<G extends object, F extends FormSpec | undefined, B, Q> = G &
  (F extends FormSpec ? FormGrant : object) &
  ([B] extends [undefined] ? object : BodyGrant<B>) &
  ([Q] extends [undefined] ? object : QueryGrant<Q>);

interface Declared<G extends object, P extends string, F extends FormSpec | undefined, B, Q> {
  method: Method;
  /** The OpenAPI path template ('/v1/qrs/{qrId}'): the router's path is derived from it. */
  path: P;
  /** Who may call it: enforced first, documented as the operation's security (and 401, 429), and typing `ctx.state`. */
  access: AccessRule<G>;
  /** Counted after the access rule, before the body is read (or right after the parser for a rule that reads it); documented as the 429. */
  rate?: readonly RateRule[];
  /** The query's parameters and their parser, run before the body is read, into `ctx.state.query`. */
  query?: QueryRequest<Q>;
  /** A check that must refuse before a byte of the body is read (e.g. the link of an upload). */
  beforeBody?: (deps: ApiDeps) => Middleware<AppState>;
  /** A JSON body: parsed with its limit and validated before the handler, into `ctx.state.body`. */
  body?: JsonRequest<B>;
  /** A multipart body with its limits, parsed before the handler into `ctx.state.form`. */
  form?: F;
  handle: (deps: ApiDeps) => (ctx: RouteContext<StateOf<G, F, B, Q>, P>) => unknown;
}

/** A documented operation: the document's entry is built from this declaration alone. */
export interface DocumentedRoute<G extends object, P extends string, F extends FormSpec | undefined = undefined, B = undefined, Q = undefined>
  extends Declared<G, P, F, B, Q>, OperationDocs {
  /** The method name a generated client gives its callers: a verb on a resource, camelCase. */
  operationId: string;
}

/** A route answered but left out of the document (an earlier spelling kept for links already printed). */
export interface UndocumentedRoute<G extends object, P extends string, F extends FormSpec | undefined = undefined, B = undefined, Q = undefined> extends Declared<G, P, F, B, Q> {
  /** Why it is not in the document. */
  undocumented: string;
}

/** A declaration with its types erased: what the router and the document generator take. */
export interface Route {
  readonly method: Method;
  readonly path: string;
  readonly access: AccessRule<object>;
  readonly operationId?: string;
  readonly docs?: OperationDocs;
  readonly rate: readonly RateRule[];
  readonly query?: QueryRequest<unknown>;
  readonly beforeBody?: (deps: ApiDeps) => Middleware<AppState>;
  readonly body?: JsonRequest<unknown>;
  readonly form?: FormSpec;
  readonly handle: (deps: ApiDeps) => Middleware<AppState>;
}

/**
 * One operation declared once, next to its handler: method, path, access and rate rules, body, documentation,
 * operationId. The handler's `ctx.state` holds what the access rule grants and the validated body (no `!`),
 * its `ctx.params` the path's parameters (no `?? ''`).
 */
export function defineRoute<G extends object, const P extends string, F extends FormSpec | undefined = undefined, B = undefined, Q = undefined>(
  route: DocumentedRoute<G, P, F, B, Q> | UndocumentedRoute<G, P, F, B, Q>,
): Route {
  const { method, path, access, rate = [], query, beforeBody, body, form, handle } = route;
  // The one cast: the access rule, the body's validation and the form parser run before the handler and set what its type says.
  const base = {
    method,
    path,
    access: access as AccessRule<object>,
    rate,
    ...(query ? { query } : {}),
    ...(beforeBody ? { beforeBody } : {}),
    ...(body ? { body } : {}),
    ...(form ? { form } : {}),
    handle: handle as unknown as (deps: ApiDeps) => Middleware<AppState>,
  };
  if ('undocumented' in route) return base;
  const { operationId, summary, description, tags, deprecated, parameters, requestBody, responses } = route;
  const docs: OperationDocs = {
    summary,
    ...(description === undefined ? {} : { description }),
    ...(tags === undefined ? {} : { tags }),
    ...(deprecated === undefined ? {} : { deprecated }),
    ...(parameters === undefined ? {} : { parameters }),
    ...(requestBody === undefined ? {} : { requestBody }),
    responses,
  };
  return { ...base, operationId, docs };
}
