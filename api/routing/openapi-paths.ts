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
 * The 429 of a route: what its access and rate rules count, after what the route itself refuses with a 429
 * (its own description names that code first, which the example takes).
 */
function tooMany(route: Route): OpenApiObject | undefined {
  const limits = [route.access.tooMany, ...route.rate.map((rule) => rule.tooMany)].filter((text): text is string => text !== undefined);
  const own = route.docs?.responses[429];
  if (limits.length === 0) return own;
  const counted = `rate limited (Retry-After): ${limits.join('; ')}`;
  if (own === undefined) return errorAnswer(counted.charAt(0).toUpperCase() + counted.slice(1));
  return { ...own, description: typeof own.description === 'string' ? `${own.description}; or ${counted}` : counted };
}

/**
 * The document's paths, from the declarations alone: each operation as declared, its security the access
 * rule's, its 401 and 403 the access rule's unless the route says more, its 429 from the access and rate rules, its
 * path parameters from the path, its query's from its declared query and its access rule.
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
    const parameters = [...pathParameters(route.path, docs.parameters ?? []), ...(docs.parameters ?? []), ...(route.query?.parameters ?? []), ...(route.access.parameters ?? [])];
    const { unauthorized, forbidden } = route.access;
    const limited = tooMany(route);
    // JSON round trip: the document is mutated by its later passes (examples, titles), never the declaration.
    item[route.method] = JSON.parse(
      JSON.stringify({
        operationId,
        ...docs,
        ...(parameters.length > 0 ? { parameters } : {}),
        security: route.access.security,
        responses: {
          ...(unauthorized === undefined ? {} : { 401: errorAnswer(unauthorized) }),
          ...(forbidden === undefined ? {} : { 403: errorAnswer(forbidden) }),
          ...docs.responses,
          ...(limited === undefined ? {} : { 429: limited }),
        },
      }),
    ) as OpenApiObject;
  }
  return paths;
}
