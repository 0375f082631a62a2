import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { harness } from '../helpers/harness.js';
import { newQrLink, type QrLink } from '../helpers/buyer.js';
import { declaredOperations } from '../helpers/declared-operations.js';

interface HostileRequest {
  what: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Answers this request may get: 4xx unless said otherwise. */
  allowed?: (status: number) => boolean;
}

const isClientError = (status: number) => status >= 400 && status < 500;

function filled(template: string, value: (name: string) => string): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(value(name)));
}

function upperStatic(path: string): string {
  return path
    .split('/')
    .map((s, i) => (i === 0 || s.startsWith('{') ? s : s.toUpperCase()))
    .join('/');
}

/** What one account owns, row by row: a hostile request must change none of it. */
async function footprint(account: BootstrapResult, link: QrLink): Promise<Record<string, unknown>> {
  const db = harness().deps.db;
  const count = async (table: string, column: string, value: string) => Number((await db(table).where(column, value).count<{ count: string }[]>({ count: '*' }))[0]!.count);
  return {
    qrs: await count('qr_transactions', 'merchant_id', account.merchantId),
    invoices: await count('invoices', 'merchant_id', account.merchantId),
    merchants: await db('merchants').where('account_id', account.accountId).select('id', 'status', 'updated_at').orderBy('id'),
    issuers: await db('issuers').where('account_id', account.accountId).select('id', 'updated_at').orderBy('id'),
    products: await count('merchant_products', 'merchant_id', account.merchantId),
    endpoints: await count('webhook_endpoints', 'account_id', account.accountId),
    idempotency: await count('idempotency_keys', 'merchant_id', account.merchantId),
    tokens: await count('access_tokens', 'account_id', account.accountId),
    keys: await db('api_keys').where('merchant_id', account.merchantId).select('id', 'revoked_at').orderBy('id'),
    link: (await db('qr_transactions').where('id', link.qrId).first('status', 'updated_at')) as unknown,
  };
}

const DEEP = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
const LONE_SURROGATE = '{"description":"\\ud800","customer":{"name":"\\udfff"},"url":"http://x/\\ud800"}';
const CONTROL = `{"description":"a\\u0001b","customer":{"name":"\\u001b[31m"}}`;
const OVERSIZED = `{"x":"${'a'.repeat(2 * 1024 * 1024)}"}`;
const INVALID_UTF8 = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xff, 0x22, 0x7d]);

/**
 * Issue #28: a hostile client against every declared operation (issue #42: the list the router and the document are built from) — other spellings of the path,
 * forged and junk credentials and headers, oversized, deep, invalid-Unicode and non-JSON bodies, forged buyer
 * links — gets a 4xx error object every time, and nothing it owns (or anyone's) changes.
 */
describe('issue #28: a hostile client on every declared operation', function () {
  this.timeout(300_000);

  it('4xx error objects, never 2xx or 5xx, and no side effect on the account', async () => {
    const account = await harness().bootstrap();
    const link = await newQrLink(account);
    // From the declarations: the routes the service answers, the undocumented earlier spellings included.
    const operations = declaredOperations();
    expect(operations.length).to.be.greaterThan(50);
    const before = await footprint(account, link);

    const forged = { v: link.v, t: `${link.t.slice(0, -2)}AA`, m: link.m };
    const ids = (name: string) => (name === 'merchantId' ? account.merchantId : name === 'issuerId' ? account.issuerId : `${name}-\u0000-../x`);
    const jsonHeaders = { 'content-type': 'application/json' };
    const bearer = { Authorization: `Bearer ${account.accessToken}` };
    const requests: HostileRequest[] = [];
    for (const op of operations) {
      const path = filled(op.template, ids);
      const hasBody = op.hasBody;
      const isPublic = op.isPublic;
      const add = (what: string, r: Omit<HostileRequest, 'what' | 'method'>) => requests.push({ what: `${op.method} ${op.template}: ${what}`, method: op.method, ...r });
      // Another spelling is no route at all.
      if (upperStatic(path) !== path) add('upper-cased path', { path: upperStatic(path), headers: { ...bearer, 'X-API-Key': account.apiKey }, allowed: (s) => s === 404 });
      add('trailing slash', { path: `${path}/`, headers: { ...bearer, 'X-API-Key': account.apiKey }, allowed: (s) => s === 404 });
      if (!isPublic) {
        // Forged, junk and foreign credentials; headers a client can write.
        add('junk bearer token', { path, headers: { Authorization: 'Bearer at_forged', 'X-Forwarded-For': '127.0.0.1' } });
        add('junk API key', { path, headers: { 'X-API-Key': `sk_live_${'A'.repeat(40)}`, 'X-Forwarded-For': '10.0.0.1, 127.0.0.1' } });
        add('credentials in the query', { path: `${path}?api_key=${account.apiKey}&access_token=${account.accessToken}`, headers: {} });
        add('Basic with broken escapes', { path, headers: { Authorization: `Basic ${Buffer.from('%E0%A4%A:%ZZ').toString('base64')}` } });
      }
      if (hasBody) {
        // Bodies with valid credentials: refused before anything is written.
        const creds = { ...bearer, 'X-API-Key': account.apiKey, 'idempotency-key': crypto.randomUUID(), 'X-TIME-ZONE': 'America/Mexico_City' };
        add('100,000-deep JSON', { path, headers: { ...creds, ...jsonHeaders }, body: DEEP });
        add('2 MB JSON', { path, headers: { ...creds, ...jsonHeaders }, body: OVERSIZED });
        add('lone surrogates', { path, headers: { ...creds, ...jsonHeaders }, body: LONE_SURROGATE });
        add('control characters', { path, headers: { ...creds, ...jsonHeaders }, body: CONTROL });
        add('invalid UTF-8', { path, headers: { ...creds, ...jsonHeaders }, body: INVALID_UTF8 });
        add('truncated JSON', { path, headers: { ...creds, ...jsonHeaders }, body: '{"sale_id":' });
        add('cross-site form post', { path, headers: { ...creds, 'content-type': 'application/x-www-form-urlencoded', Origin: 'https://evil.example' }, body: 'a=1&b=2' });
      }
      if (op.template.startsWith('/v1/public/qrs/') && !op.template.includes('{')) {
        // A forged link (one character of the token changed), in the query and in a body.
        const query = new URLSearchParams(forged).toString();
        add('forged link', {
          path: `${path}?${query}`,
          headers: jsonHeaders,
          body: op.method !== 'GET' ? JSON.stringify({ ...forged, rfc: 'XAXX010101000', customer: { rfc: 'XAXX010101000' }, email: 'x@evil.example' }) : undefined,
        });
      }
    }

    const problems: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < requests.length) {
          const r = requests[next++]!;
          const res = await fetch(`${harness().baseUrl}${r.path}`, {
            method: r.method,
            headers: r.headers,
            body: typeof r.body === 'string' || r.body === undefined ? r.body : new Uint8Array(r.body),
          }).catch((err: Error) => err);
          if (res instanceof Error) {
            problems.push(`${r.what}: ${res.message}`);
            continue;
          }
          const raw = await res.text();
          if (!(r.allowed ?? isClientError)(res.status)) problems.push(`${r.what} → ${res.status} ${raw.slice(0, 160)}`);
          else if (!(res.headers.get('content-type') ?? '').includes('text/html')) {
            const error = (JSON.parse(raw) as { error?: { code?: string; request_id?: string } }).error;
            if (!error?.code || error.request_id !== res.headers.get('x-request-id')) problems.push(`${r.what}: not the error object: ${raw.slice(0, 160)}`);
          }
        }
      }),
    );
    expect(problems, problems.join('\n')).to.deep.equal([]);
    expect(requests.length).to.be.greaterThan(400);
    expect(await footprint(account, link)).to.deep.equal(before);
  });
});
