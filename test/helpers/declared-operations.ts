import { declaredRoutes } from '../../api/route-catalog.js';
import type { Route } from '../../api/routing/route.js';

/** One operation as the suites walk it, read from its declaration (never a hand list, never the served document). */
export interface DeclaredOperation {
  /** Upper case: GET, POST, … */
  method: string;
  /** The OpenAPI path template: '/v1/qrs/{qrId}'. */
  template: string;
  /** The access rule's name: 'api-key', 'bearer', 'public', … */
  access: string;
  /** The route reads a body (JSON or multipart). */
  hasBody: boolean;
  /** No security requirement: anyone may call it. */
  isPublic: boolean;
  operationId: string | undefined;
}

/** Every declared operation, in matching order; `routes` for a fixture's own list. */
export function declaredOperations(routes: readonly Route[] = declaredRoutes()): DeclaredOperation[] {
  return routes.map((route) => ({
    method: route.method.toUpperCase(),
    template: route.path,
    access: route.access.name,
    hasBody: route.body !== undefined || route.form !== undefined,
    isPublic: route.access.security.length === 0,
    operationId: route.operationId,
  }));
}
