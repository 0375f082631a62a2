import type { Server } from 'node:http';
import { expect } from 'chai';
import { createApp } from '../../api/app.js';
import type { ApiDeps } from '../../api/deps.js';
import { retryAfterSeconds } from '../../api/middleware/rate-limit.js';
import type { Config } from '../../shared/platform/config.js';
import { harness } from '../helpers/harness.js';
import { removeServiceKeys, serviceKeys } from '../helpers/redis-keys.js';

/** An API process beside the harness's (same PostgreSQL and Redis) with its own settings. */
async function startApi(settings: Partial<Config>): Promise<{ base: string; close(): Promise<void> }> {
  const deps: ApiDeps = { ...harness().deps, config: { ...harness().deps.config, ...settings } };
  const server: Server = createApp(deps).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function statuses(base: string, requests: { path: string; headers: Record<string, string>; method?: string }[]): Promise<number[]> {
  const answers: number[] = [];
  for (const r of requests) answers.push((await fetch(`${base}${r.path}`, { method: r.method ?? 'GET', headers: r.headers })).status);
  return answers;
}

const times = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));

describe('rate limits per API key and per client IP (sliding window, 429 with Retry-After)', () => {
  let api: { base: string; close(): Promise<void> };
  beforeEach(async () => {
    // The per-IP counters of this file's client (127.0.0.1), so each test starts clean.
    await removeServiceKeys(harness().redis, 'rl:mgmt-ip:*');
    await removeServiceKeys(harness().redis, 'rl:key-fail-ip:*');
    await removeServiceKeys(harness().redis, 'rl:code-ip:*');
  });
  afterEach(async () => api?.close());

  it('limits each API key on its own: the 6th request of a key is 429 error object with Retry-After, another key still passes', async () => {
    api = await startApi({ apiKeyRatePerMin: 5 });
    const [a, b] = [await harness().bootstrap(), await harness().bootstrap()];
    const answers: Response[] = [];
    for (let i = 0; i < 8; i++) answers.push(await fetch(`${api.base}/v1/qrs/tra_unknown`, { headers: { 'X-API-Key': a.apiKey } }));
    // A minute boundary inside the loop carries the count over (sliding window): still limited.
    expect(answers.map((r) => r.status)).to.deep.equal([404, 404, 404, 404, 404, 429, 429, 429]);
    const limited = answers[5]!;
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 120);
    const body = (await limited.json()) as { error: { code: string; request_id: string } };
    expect(body.error.code).to.equal('rate_limited');
    expect(body.error.request_id).to.equal(limited.headers.get('x-request-id'));
    expect((await fetch(`${api.base}/v1/qrs/tra_unknown`, { headers: { 'X-API-Key': b.apiKey } })).status).to.equal(404);
    // The key itself is not in Redis: only a hash of it names the counter, under the queue prefix.
    const keys = await serviceKeys(harness().redis, 'rl:api-key:*');
    expect(keys).to.not.be.empty;
    expect(keys.join(' ')).to.not.include(a.apiKey.slice(8, 30));
  });

  it('limits the bearer-token management routes per client IP; the buyer routes keep their own limits', async () => {
    api = await startApi({ managementRatePerIp: 4 });
    const account = await harness().bootstrap();
    const bearer = { Authorization: `Bearer ${account.accessToken}` };
    expect(
      await statuses(
        api.base,
        times(6, () => ({ path: '/v1/webhooks/endpoints', headers: bearer })),
      ),
    ).to.deep.equal([200, 200, 200, 200, 429, 429]);
    // Not counted: the buyer's public routes (their own, stricter limits), health and the OpenAPI document.
    expect((await fetch(`${api.base}/openapi.json`)).status).to.equal(200);
    expect((await fetch(`${api.base}/v1/public/qrs/status?v=1&t=x&m=y`)).status).to.not.equal(429);
  });

  it('issue #28: a junk X-API-Key, or another spelling of the path, does not move a request out of its per-IP bucket', async () => {
    api = await startApi({ managementRatePerIp: 4 });
    const account = await harness().bootstrap();
    const bearer = { Authorization: `Bearer ${account.accessToken}` };
    const junk = { ...bearer, 'X-API-Key': 'junk' };
    expect(
      await statuses(api.base, [
        { path: '/v1/webhooks/endpoints', headers: junk },
        { path: '/V1/webhooks/endpoints', headers: bearer },
        { path: '/v1/webhooks/endpoints', headers: junk },
        { path: '/v1/webhooks/endpoints', headers: bearer },
        { path: '/v1/webhooks/endpoints', headers: bearer },
        { path: '/v1/webhooks/endpoints', headers: junk },
      ]),
    ).to.deep.equal([200, 404, 200, 200, 200, 429]);
    // POST /v1/auth/token is counted per IP whatever else the request carries.
    await removeServiceKeys(harness().redis, 'rl:mgmt-ip:*');
    const token = (key?: string) => ({ method: 'POST', path: '/v1/auth/token', headers: { 'content-type': 'application/json', ...(key ? { 'X-API-Key': key } : {}) } });
    expect(await statuses(api.base, [token('junk-1'), token(), token('junk-2'), token('junk-3'), token('junk-4')])).to.deep.equal([400, 400, 400, 400, 429]);
  });

  it('issue #28: wrong API keys are counted per client IP; past API_KEY_FAILURES_PER_IP its key requests get 429 before any lookup', async () => {
    api = await startApi({ apiKeyFailuresPerIp: 3 });
    const account = await harness().bootstrap();
    const wrong = times(4, (i) => ({ path: '/v1/qrs/tra_unknown', headers: { 'X-API-Key': `sk_test_guess${i}` } }));
    expect(await statuses(api.base, wrong)).to.deep.equal([401, 401, 401, 429]);
    // A good key from that address waits too (the window fades); requests that did not fail are not counted.
    expect(await statuses(api.base, [{ path: '/v1/qrs/tra_unknown', headers: { 'X-API-Key': account.apiKey } }])).to.deep.equal([429]);
    await removeServiceKeys(harness().redis, 'rl:key-fail-ip:*');
    expect(
      await statuses(
        api.base,
        times(5, () => ({ path: '/v1/qrs/tra_unknown', headers: { 'X-API-Key': account.apiKey } })),
      ),
    ).to.deep.equal([404, 404, 404, 404, 404]);
  });

  it('issue #40: the failed keys per IP guard the PostgreSQL lookup only: a key this API process holds as good is not refused, a key it must look up is', async () => {
    api = await startApi({ apiKeyFailuresPerIp: 3 });
    const [known, unknown] = [await harness().bootstrap(), await harness().bootstrap()];
    const get = (key: string) => ({ path: '/v1/qrs/tra_unknown', headers: { 'X-API-Key': key } });
    // The key is looked up and its principal cached (under its group's principal generation, which the first
    // request of a fresh Redis sets); the guesser's requests then fill the count.
    expect(await statuses(api.base, [get(known.apiKey), get(known.apiKey), ...times(4, (i) => get(`sk_test_guess${i}`))])).to.deep.equal([404, 404, 401, 401, 401, 429]);
    // No per-IP read for the cached key: its requests pass (one Redis command fewer per request on a cluster's
    // hot IP counter); a key that would be read from PostgreSQL waits, as the guesses do.
    expect(await statuses(api.base, [get(known.apiKey), get(unknown.apiKey), get(known.apiKey)])).to.deep.equal([404, 429, 404]);
  });

  it('issue #28: TRUST_PROXY=1 takes the address the proxy saw: 11 code lookups with rotating left-most X-Forwarded-For entries → 429', async () => {
    api = await startApi({ trustProxyHops: 1, publicCodeRatePerIp: 10 });
    const lookup = (forged: number, hop: string) => ({ path: '/v1/public/qrs/code/ZZZZ2222ZZ', headers: { 'X-Forwarded-For': `198.51.100.${forged}, ${hop}` } });
    const answers = await statuses(
      api.base,
      times(11, (i) => lookup(i, '203.0.113.7')),
    );
    expect(answers.slice(0, 10).every((status) => status === 404)).to.equal(true, answers.join());
    expect(answers[10]).to.equal(429);
    // Another client behind the same proxy has its own count.
    expect(await statuses(api.base, [lookup(1, '203.0.113.8')])).to.deep.equal([404]);
  });

  it('issue #28: without TRUST_PROXY, X-Forwarded-For is not believed at all', async () => {
    api = await startApi({ trustProxyHops: 0, publicCodeRatePerIp: 10 });
    const answers = await statuses(
      api.base,
      times(11, (i) => ({ path: '/v1/public/qrs/code/ZZZZ2222ZZ', headers: { 'X-Forwarded-For': `198.51.100.${i}` } })),
    );
    expect(answers[10]).to.equal(429);
  });

  it('Retry-After says when the sliding estimate is back under the limit', () => {
    // 10 last minute, 0 this minute, limit 5, at the start of the minute: last minute's share must fade to 5 → 30 s.
    expect(retryAfterSeconds({ previous: 10, current: 0 }, 0, 5)).to.equal(30);
    // This minute alone is over (8 > 4) half-way through: 30 s to the next minute, then 8 × (1 − f) ≤ 4 at f = 0.5: 60 s.
    expect(retryAfterSeconds({ previous: 0, current: 8 }, 0.5, 4)).to.equal(60);
    expect(retryAfterSeconds({ previous: 100, current: 1 }, 0.999, 5)).to.be.within(1, 120);
  });
});
