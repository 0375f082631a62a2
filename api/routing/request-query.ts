import { PAGE_DEFAULTS, parsePageRequest, type PageRequest } from '../../shared/platform/pagination.js';

/**
 * A route's query as the route declares it: the parameters the document lists (after the route's own) and
 * the parser routerOf runs before the handler, whose value the handler gets as `ctx.state.query`.
 */
export interface QueryRequest<Q> {
  /** OpenAPI parameter objects. */
  readonly parameters: readonly Readonly<Record<string, unknown>>[];
  /** The value, or a 400 `validation_failed` with details. */
  readonly parse: (query: Record<string, unknown>) => Q;
}

/** Offset paging of the page envelope lists: `page` (0-based) and `size`. */
export const pagedQuery: QueryRequest<PageRequest> = {
  parameters: [
    { name: 'page', in: 'query', schema: { type: 'integer', minimum: 0, default: PAGE_DEFAULTS.page } },
    { name: 'size', in: 'query', schema: { type: 'integer', minimum: 1, maximum: PAGE_DEFAULTS.maxSize, default: PAGE_DEFAULTS.size } },
  ],
  parse: parsePageRequest,
};
