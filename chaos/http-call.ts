/** One request and its answer as the history records it: never throws; a refused connection is status 0. */
export interface Answer {
  status: number;
  /** Parsed JSON, or undefined (no answer, or not JSON). */
  body: unknown;
  headers: Headers | undefined;
  /** The network error when there was no HTTP answer (ECONNREFUSED, reset, timeout). */
  error?: string;
  ms: number;
}

export async function httpCall(method: string, url: string, options: { headers?: Record<string, string>; body?: unknown; timeoutMs?: number } = {}): Promise<Answer> {
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method,
      headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: res.status, body, headers: res.headers, ms: performance.now() - started };
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : undefined;
    return { status: 0, body: undefined, headers: undefined, error: cause ?? (err instanceof Error ? err.message : String(err)), ms: performance.now() - started };
  }
}

/** Is this the service's error object: `{ error: { code, message, details, request_id } }`? */
export function isErrorObject(body: unknown): body is { error: { code: string; message: string } } {
  if (typeof body !== 'object' || body === null) return false;
  const error = (body as { error?: unknown }).error;
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' && typeof (error as { message?: unknown }).message === 'string';
}

/** `status` or `status code` for the count tables: `201`, `503 service_unavailable`, `0 ECONNREFUSED`. */
export function answerLabel(answer: Answer): string {
  if (answer.status === 0) return `0 ${answer.error?.replace(/^.*(ECONNREFUSED|ECONNRESET|other side closed|timeout|aborted).*$/i, '$1') ?? 'no answer'}`;
  return isErrorObject(answer.body) ? `${answer.status} ${answer.body.error.code}` : String(answer.status);
}

export function tally(labels: string[]): string {
  const counts = new Map<string, number>();
  for (const l of labels) counts.set(l, (counts.get(l) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([l, n]) => `${n}× ${l}`)
    .join(', ');
}
