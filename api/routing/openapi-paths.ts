import type { OpenApiObject, Route } from './route.js';

/** A path item of the document: its operations by method. */
export type PathItems = Record<string, Record<string, OpenApiObject>>;

const errorAnswer = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

/** The path's parameters the declaration does not describe itself: required strings, in the path's order. */
function pathParameters(path: string, declared: OpenApiObject[]): OpenApiObject[] {
  const described = new Set(declared.filter((p) => p.in === 'path').map((p) => p.name));
  return [...path.matchAll(/\{(\w+)\}/g)]
    .map((m) => m[1]!)
    .filter((name) => !described.has(name))
    .map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
}

/**
 * The document's paths, from the declarations alone: each operation as declared, its security the access
 * rule's, its 401 the access rule's unless the route says more, its path parameters from the path.
 * Two declarations of one operation, or of one operationId, are an error here rather than a document that
 * says one of them.
 */
export function documentedPaths(routes: readonly Route[]): PathItems {
  const paths: PathItems = {};
  const ids = new Set<string>();
  for (const route of routes) {
    const { docs, operationId } = route;
    if (!docs || operationId === undefined) continue;
    const item = (paths[route.path] ??= {});
    if (item[route.method]) throw new Error(`${route.method.toUpperCase()} ${route.path} is declared twice`);
    if (ids.has(operationId)) throw new Error(`operationId ${operationId} is declared twice`);
    ids.add(operationId);
    const parameters = [...pathParameters(route.path, docs.parameters ?? []), ...(docs.parameters ?? [])];
    const unauthorized = route.access.unauthorized;
    // JSON round trip: the document is mutated by its later passes (examples, titles), never the declaration.
    item[route.method] = JSON.parse(
      JSON.stringify({
        operationId,
        ...docs,
        ...(parameters.length > 0 ? { parameters } : {}),
        security: route.access.security,
        responses: { ...(unauthorized === undefined ? {} : { 401: errorAnswer(unauthorized) }), ...docs.responses },
      }),
    ) as OpenApiObject;
  }
  return paths;
}

/** The path table's operations and the declared ones together: while routes are migrated, each operation is in one of them. */
export function mergedPaths(table: PathItems, declared: PathItems): PathItems {
  const merged: PathItems = { ...table };
  for (const [path, item] of Object.entries(declared)) {
    for (const method of Object.keys(item)) {
      if (merged[path]?.[method]) throw new Error(`${method.toUpperCase()} ${path} is both declared and in the path table`);
    }
    merged[path] = { ...merged[path], ...item };
  }
  return merged;
}
