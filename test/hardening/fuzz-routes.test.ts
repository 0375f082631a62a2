import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import fc from 'fast-check';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { sampleSale } from '../fixtures/sample-sale.js';
import { harness } from '../helpers/harness.js';

/** Requests per route and method of the OpenAPI document (58 of them); FUZZ_RUNS=173 gives 10,034 in all. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const SEED = Number(process.env.FUZZ_SEED ?? 20_260_808);

/** A full GC, so memory is compared after garbage is gone (mocha does not pass --expose-gc). */
function collect(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', ' ', 'null', '-1', '1e309', 'NaN', 'true', '[]', '{}', '__proto__', 'constructor', '\u0000', '😀'.repeat(3)),
);
const segment = fc.oneof(
  text.map(encodeURIComponent),
  fc.constantFrom('%ZZ', '%E0%A4%A', '%00', '%C0%AE%C0%AE', '..%2F..%2Fetc%2Fpasswd', 'x'.repeat(5000), 'tra_' + 'A'.repeat(22), '%FF%FE'),
);
const query = fc
  .array(fc.tuple(fc.constantFrom('page', 'page_size', 'limit', 'v', 't', 'm', 'code', 'exp', 'sig', 'status', 'q', '__proto__', 'x'), text), { maxLength: 5 })
  .map((pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&'));

/** Nested `depth` deep, as JSON text: parsers and validators that recurse must not fall over. */
const deep = fc
  .integer({ min: 50, max: 20_000 })
  .chain((depth) => fc.constantFrom(`${'['.repeat(depth)}${']'.repeat(depth)}`, `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`, '['.repeat(depth)));

function body(valid: Record<string, unknown>): fc.Arbitrary<Buffer> {
  const json = (v: unknown) => Buffer.from(JSON.stringify(v) ?? 'undefined');
  return fc.oneof(
    fc.jsonValue({ maxDepth: 4 }).map(json),
    // The route's own valid-looking body with one field swapped for a wrong type or removed: reaches schema and rules.
    fc.tuple(fc.constantFrom(...Object.keys(valid)), fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(undefined))).map(([k, v]) => json({ ...valid, [k]: v })),
    fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 8 }).map((extra) => json({ ...valid, ...extra })),
    deep.map((s) => Buffer.from(s)),
    fc.constantFrom(
      Buffer.from('{"a":'),
      Buffer.from('{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}'),
      Buffer.from('{"amount":1e400}'),
      Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x22, 0x00]),
      Buffer.from([0xc3, 0x28, 0xa0, 0xa1]),
      Buffer.alloc(300 * 1024, 'a'),
      Buffer.from(`{"x":"${'a'.repeat(300 * 1024)}"}`),
      Buffer.from('--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n'),
      Buffer.alloc(0),
    ),
    fc.uint8Array({ maxLength: 2000 }).map((a) => Buffer.from(a)),
  );
}

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=x',
  'text/plain',
  'application/xml',
  '*/*',
  ';;;',
  'application/json; boundary=',
);

function requests(method: string, template: string, credentials: Record<string, string>, valid: Record<string, unknown>): fc.Arbitrary<FuzzRequest> {
  const params = template.match(/\{[^}]+\}/g) ?? [];
  const withBody = method === 'post' || method === 'put' || method === 'delete';
  return fc
    .record({
      values: fc.array(segment, { minLength: params.length, maxLength: params.length }),
      query,
      authed: fc.boolean(),
      which: fc.constantFrom('key', 'token', 'both'),
      zone: fc.oneof(
        fc.constant('America/Mexico_City'),
        text.map((s) => s.replace(/[^\x20-\x7e]/g, '')),
      ),
      idem: fc.oneof(
        fc.uuid(),
        text.map((s) => s.replace(/[^\x20-\x7e]/g, '')),
      ),
      type: contentType,
      gzip: fc.constantFrom(undefined, 'gzip', 'deflate', 'br', 'x-garbage', 'gzip-but-not'),
      garbageAuth: text.map((s) => s.replace(/[^\x20-\x7e]/g, '')),
      requestId: fc.option(text.map((s) => s.replace(/[^\x20-\x7e]/g, ''))),
      payload: body(valid),
    })
    .map((r) => {
      let path = template;
      params.forEach((p, i) => {
        path = path.replace(p, r.values[i] ?? 'x');
      });
      const headers: Record<string, string> = { 'X-TIME-ZONE': r.zone, 'idempotency-key': r.idem };
      if (r.authed) {
        if (r.which !== 'token') headers['X-API-Key'] = credentials.apiKey!;
        if (r.which !== 'key') headers.Authorization = `Bearer ${credentials.accessToken}`;
      } else if (r.garbageAuth) {
        headers[r.which === 'key' ? 'X-API-Key' : 'Authorization'] = r.which === 'key' ? r.garbageAuth : `Bearer ${r.garbageAuth}`;
      }
      if (r.requestId !== null) headers['X-Request-Id'] = r.requestId;
      let payload: Buffer | undefined;
      if (withBody) {
        headers['content-type'] = r.type;
        payload = r.payload;
        if (r.gzip) {
          headers['content-encoding'] = r.gzip === 'gzip-but-not' ? 'gzip' : r.gzip;
          if (r.gzip === 'gzip') payload = gzipSync(payload);
        }
      }
      return { method: method.toUpperCase(), path: r.query ? `${path}?${r.query}` : path, headers, body: payload };
    });
}

/** What the route's body roughly looks like, so swapped fields reach validation past the parser. */
function validBody(path: string, account: BootstrapResult): Record<string, unknown> {
  if (path === '/v1/qrs' || path === '/api/v1/qrs') return sampleSale(account.storeUid, new Date(Date.now() + 86_400_000), 'fuzz') as unknown as Record<string, unknown>;
  if (path.startsWith('/v1/public/qrs/'))
    return { v: '1', t: 'x'.repeat(22), m: 'y'.repeat(22), customer: { rfc: 'XAXX010101000', name: 'X', tax_regime: '616', postal_code: '01000', cfdi_use: 'S01' } };
  if (path === '/v1/auth/token') return { grant_type: 'client_credentials', client_id: account.clientId, client_secret: 'x' };
  if (path === '/v1/webhooks/endpoints') return { url: 'http://127.0.0.1:9/x', events: ['qr.scanned'] };
  return { merchantName: 'x', issuerId: account.issuerId, name: 'x', url: 'x', periodicity: '04' };
}

describe('fuzz: malformed, oversized, nested, wrong-typed and wrongly encoded requests on every documented route', function () {
  this.timeout(600_000);

  it(`${RUNS} requests per route and method (seed ${SEED}): 0 5xx, every 4xx is the error object with request_id, memory bounded`, async () => {
    const account = await harness().bootstrap();
    const doc = (await (await fetch(`${harness().baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const all: FuzzRequest[] = [];
    let salt = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops).filter((m) => ['get', 'post', 'put', 'delete', 'patch'].includes(m))) {
        all.push(...fc.sample(requests(method, path, account as unknown as Record<string, string>, validBody(path, account)), { seed: SEED + salt++, numRuns: RUNS }));
      }
    }
    collect();
    const rssBefore = process.memoryUsage().rss;
    const heapBefore = process.memoryUsage().heapUsed;
    let resets = 0;
    const started = performance.now();
    const problems: string[] = [];
    const statuses = new Map<number, number>();
    const total = all.length;
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < all.length) {
          const req = all[next++]!;
          let status: number;
          let problem: string | undefined;
          try {
            const send = () => fetch(`${harness().baseUrl}${req.path}`, { method: req.method, headers: req.headers, body: req.body ? new Uint8Array(req.body) : undefined });
            // Keep-alive race: the server answered an earlier request (401, 413) without reading its whole body and
            // closed that connection; a request already on its way over it is reset. Sent again once, and counted.
            const res = await send().catch((err: Error & { cause?: { code?: string } }) => {
              if (!['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'].includes(err.cause?.code ?? '')) throw err;
              resets++;
              return send();
            });
            status = res.status;
            const type = res.headers.get('content-type') ?? '';
            const raw = await res.text();
            if (status >= 500) problem = `${status} ${raw.slice(0, 200)}`;
            else if (status >= 400 && !(req.path.startsWith('/q') && type.includes('text/html'))) {
              let parsed: { error?: { code?: unknown; message?: unknown; details?: unknown; request_id?: unknown } } = {};
              try {
                parsed = JSON.parse(raw) as typeof parsed;
              } catch {
                /* checked below */
              }
              const e = parsed.error;
              if (
                !e ||
                typeof e.code !== 'string' ||
                typeof e.message !== 'string' ||
                !Array.isArray(e.details) ||
                typeof e.request_id !== 'string' ||
                e.request_id !== res.headers.get('x-request-id')
              ) {
                problem = `${status} not an error object: ${raw.slice(0, 200)}`;
              }
            }
          } catch (err) {
            status = 0;
            problem = `no answer: ${(err as Error).message} ${String((err as { cause?: unknown }).cause)}`;
          }
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (problem && problems.length < 20) problems.push(`${req.method} ${req.path.slice(0, 120)} ${JSON.stringify(req.headers).slice(0, 200)}: ${problem}`);
        }
      }),
    );
    all.length = 0;
    collect();
    const growthMb = (process.memoryUsage().rss - rssBefore) / 1e6;
    const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `      ${total} requests in ${seconds.toFixed(1)} s, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}, ${resets} connection resets retried, RSS growth ${growthMb.toFixed(1)} MB, heap growth ${heapMb.toFixed(1)} MB`,
    );
    if (problems.length > 0 && process.env.FUZZ_DEBUG) {
      const errors = new Set(
        harness()
          .logs.filter((l) => l.includes('"level":50'))
          .map((l) => JSON.stringify((JSON.parse(l) as { err?: { type?: string; message?: string } }).err?.message ?? l).slice(0, 300)),
      );
      console.log([...errors].join('\n'));
    }
    expect(problems, problems.join('\n')).to.deep.equal([]);
    expect([...statuses.keys()].filter((s) => s >= 500 || s === 0)).to.deep.equal([]);
    expect(heapMb).to.be.below(50); // the target: retained JavaScript memory
    // RSS also holds what the allocator keeps (API, workers and client share this process): a loose sanity bound.
    expect(growthMb).to.be.below(250);
  });
});
