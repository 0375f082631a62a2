import { expect } from 'chai';
import { harness } from './harness.js';

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** Every JSON answer a test got through call() or callForm(): test/setup.ts checks them against the OpenAPI document. */
export const jsonAnswers: { method: string; path: string; status: number; body: unknown }[] = [];

/** A real HTTP request to the harness API (no in-process shortcuts). */
export async function call<T = any>(
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; rawBody?: string | Buffer } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  let body: string | Buffer | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${harness().baseUrl}${path}`, { method, headers, body: typeof body === 'string' || body === undefined ? body : new Uint8Array(body) });
  const type = res.headers.get('content-type') ?? '';
  const parsed = type.includes('json') ? await res.json() : Buffer.from(await res.arrayBuffer());
  if (type.includes('json')) jsonAnswers.push({ method, path, status: res.status, body: parsed });
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** The spec's error object, with the request id echoed in X-Request-Id. */
export function expectError(res: { status: number; body: any; headers: Headers }, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.body.error.code).to.equal(code);
  expect(res.body.error.message).to.be.a('string').that.is.not.empty;
  expect(res.body.error.details).to.be.an('array');
  expect(res.body.error.request_id).to.equal(res.headers.get('x-request-id'));
}

export interface FormPart {
  data: Buffer;
  fileName: string;
}

/** A multipart/form-data request with a bearer token: strings become fields, FormParts files. */
export async function callForm<T = any>(method: string, path: string, token: string, parts: Record<string, string | FormPart | undefined>): Promise<Answer<T>> {
  const form = new FormData();
  for (const [name, part] of Object.entries(parts)) {
    if (part === undefined) continue;
    if (typeof part === 'string') form.append(name, part);
    else form.append(name, new Blob([new Uint8Array(part.data)]), part.fileName);
  }
  const res = await fetch(`${harness().baseUrl}${path}`, { method, headers: { Authorization: `Bearer ${token}` }, body: form });
  const body = (await res.json()) as T;
  jsonAnswers.push({ method, path, status: res.status, body });
  return { status: res.status, headers: res.headers, body };
}
