import type { Middleware } from 'koa';
import type { AccessRule, FormGrant } from '../access/access-rules.js';
import type { AppContext, AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';

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
  /** By status; a 401 comes from the access rule unless given here. */
  responses: Record<number, OpenApiObject>;
}

/** A multipart body's limits. */
export interface FormSpec {
  maxFileBytes: number;
  maxFiles: number;
}

/** The state a handler gets: its access rule's, and the form when the route declares one. */
type StateOf<G extends object, F extends FormSpec | undefined> = G & (F extends FormSpec ? FormGrant : object);

interface Declared<G extends object, P extends string, F extends FormSpec | undefined> {
  method: Method;
  /** The OpenAPI path template ('/v1/qrs/{qrId}'): the router's path is derived from it. */
  path: P;
  /** Who may call it: enforced first, documented as the operation's security, and typing `ctx.state`. */
  access: AccessRule<G>;
  /** Middleware between the access rule and the handler, in order: rate rules, the body parser with its limit. */
  use?: (deps: ApiDeps) => Middleware<AppState>[];
  /** A multipart body, parsed last before the handler into `ctx.state.form`. */
  form?: F;
  handle: (deps: ApiDeps) => (ctx: RouteContext<StateOf<G, F>, P>) => unknown;
}

/** A documented operation: the document's entry is built from this declaration alone. */
export interface DocumentedRoute<G extends object, P extends string, F extends FormSpec | undefined = undefined> extends Declared<G, P, F>, OperationDocs {
  /** The method name a generated client gives its callers: a verb on a resource, camelCase. */
  operationId: string;
}

/** A route answered but left out of the document (an earlier spelling kept for links already printed). */
export interface UndocumentedRoute<G extends object, P extends string, F extends FormSpec | undefined = undefined> extends Declared<G, P, F> {
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
  readonly form?: FormSpec;
  readonly use?: (deps: ApiDeps) => Middleware<AppState>[];
  readonly handle: (deps: ApiDeps) => Middleware<AppState>;
}

/**
 * One operation declared once, next to its handler: method, path, access rule, middleware, documentation,
 * operationId. The handler's `ctx.state` holds what the access rule grants (no `!`), its `ctx.params` the
 * path's parameters (no `?? ''`).
 */
export function defineRoute<G extends object, const P extends string, F extends FormSpec | undefined = undefined>(
  route: DocumentedRoute<G, P, F> | UndocumentedRoute<G, P, F>,
): Route {
  const { method, path, access, use, form, handle } = route;
  // The one cast: the access rule (and the form parser) run before the handler and set what its type says.
  const base = {
    method,
    path,
    access: access as AccessRule<object>,
    ...(use ? { use } : {}),
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
