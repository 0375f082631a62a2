/**
 * What every parsed request body is checked for before anything walks it: nesting (the recursive walks
 * after it, idempotency's canonical JSON and ajv, overflow the stack on a 100,000-deep body) and lone
 * surrogates (not Unicode: PostgreSQL refuses them in jsonb, XML cannot hold them). Iterative, so the check
 * itself cannot overflow.
 */
import { codePointName } from '../../domain/cfdi/xml-chars.js';

/** Deeper than any request of the API (POST /v1/qrs nests 5) by a wide margin. */
export const MAX_JSON_DEPTH = 32;

const LONE_SURROGATE = /\p{Surrogate}/u;

export type JsonBodyProblem = { kind: 'too_deep'; maxDepth: number } | { kind: 'lone_surrogate'; field: string; codePoint: string };

interface Visit {
  value: unknown;
  depth: number;
  parent?: Visit;
  key?: string | number;
}

/** `operation_data[0].description`, as validation details name fields (shared/platform/validation/ajv.ts). */
function fieldOf(visit: Visit, lastKey?: string): string {
  const keys: (string | number)[] = lastKey === undefined ? [] : [lastKey];
  for (let v: Visit | undefined = visit; v?.key !== undefined; v = v.parent) keys.unshift(v.key);
  let field = '';
  for (const k of keys) field += typeof k === 'number' ? `[${k}]` : field === '' ? k : `.${k}`;
  return field || '(body)';
}

function surrogateIn(text: string): string | undefined {
  const found = LONE_SURROGATE.exec(text);
  return found ? codePointName(found[0].codePointAt(0) ?? 0) : undefined;
}

/** The first problem of a parsed JSON (or form) body, or undefined. */
export function jsonBodyProblem(body: unknown, maxDepth = MAX_JSON_DEPTH): JsonBodyProblem | undefined {
  const stack: Visit[] = [{ value: body, depth: 0 }];
  for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
    const { value, depth } = visit;
    if (typeof value === 'string') {
      const codePoint = surrogateIn(value);
      if (codePoint) return { kind: 'lone_surrogate', field: fieldOf(visit), codePoint };
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth + 1 > maxDepth) return { kind: 'too_deep', maxDepth };
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i] as unknown, depth: depth + 1, parent: visit, key: i });
      continue;
    }
    const entries = Object.entries(value as Record<string, unknown>);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      const codePoint = surrogateIn(key);
      if (codePoint) return { kind: 'lone_surrogate', field: fieldOf(visit, key), codePoint };
      stack.push({ value: child, depth: depth + 1, parent: visit, key });
    }
  }
  return undefined;
}
