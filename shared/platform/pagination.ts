/** Page query parameters and the spec's page envelope for lists. */
import { AppError, type ErrorDetail } from './errors.js';

export interface PageRequest {
  page: number;
  size: number;
}

export interface Page<T> {
  content: T[];
  totalElements: number;
  totalPages: number;
  number: number;
  size: number;
}

export const PAGE_DEFAULTS = { page: 0, size: 20, maxSize: 100 } as const;

const count = { type: 'integer', minimum: 0 } as const;

/** JSON Schema of the page envelope of `items` (what pageOf builds), for the OpenAPI document. */
export function pageSchema<const I extends object>(items: I, description: string) {
  return {
    type: 'object',
    additionalProperties: false,
    description,
    required: ['content', 'totalElements', 'totalPages', 'number', 'size'],
    properties: {
      content: { type: 'array', items, description: 'The items of this page' },
      totalElements: { ...count, description: 'Items in all pages' },
      totalPages: count,
      number: { ...count, description: 'This page, zero-based' },
      size: { type: 'integer', minimum: 1, maximum: PAGE_DEFAULTS.maxSize, description: 'Page size asked for' },
    },
  } as const;
}

function integer(value: unknown, field: string, min: number, max: number, fallback: number, out: ErrorDetail[]): number {
  if (value === undefined || value === '') return fallback;
  const n = typeof value === 'string' && /^[0-9]{1,9}$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    out.push({ field, code: 'out_of_range', message: `${field} must be an integer from ${min} to ${max}.` });
    return fallback;
  }
  return n;
}

/** `page` (zero-based, default 0) and `size` (1–100, default 20) from a query string; 400 when malformed. */
export function parsePageRequest(query: Record<string, unknown>): PageRequest {
  const details: ErrorDetail[] = [];
  const page = integer(query.page, 'page', 0, 1_000_000, PAGE_DEFAULTS.page, details);
  const size = integer(query.size, 'size', 1, PAGE_DEFAULTS.maxSize, PAGE_DEFAULTS.size, details);
  if (details.length > 0) throw new AppError(400, 'validation_failed', 'Invalid paging parameters.', { details });
  return { page, size };
}

export function pageOf<T>(content: T[], totalElements: number, request: PageRequest): Page<T> {
  return { content, totalElements, totalPages: Math.ceil(totalElements / request.size), number: request.page, size: request.size };
}

/** One text query parameter (the first when repeated), trimmed and bounded; undefined when absent or empty. */
export function queryText(query: Record<string, string | string[] | undefined>, name: string, maxLength = 100): string | undefined {
  const value = [query[name]].flat()[0]?.trim().slice(0, maxLength);
  return value ? value : undefined;
}
