import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level: the same data always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * What makes two requests "the same request": the canonical body plus the headers that change the
 * result (X-TIME-ZONE sets the emission date). Key order and whitespace do not matter.
 */
export function requestFingerprint(body: unknown, headers: Record<string, string>): string {
  return createHash('sha256').update(canonicalJson({ body, headers })).digest('base64url');
}
