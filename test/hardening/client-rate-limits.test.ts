import type { Server } from 'node:http';
import { expect } from 'chai';
import { createApp } from '../../api/app.js';
import { retryAfterSeconds } from '../../api/middleware/rate-limit.js';
import { harness } from '../helpers/harness.js';

describe('rate limits per API key and per client IP (sliding window, 429 with Retry-After)', () => {
  let server: Server;
  let base: string;
  before(async () => {
    // An API process with low limits beside the harness's (same PostgreSQL and Redis).
    const deps = { ...harness().deps, config: { ...harness().deps.config, apiKeyRatePerMin: 5, managementRatePerIp: 4 } };
    server = createApp(deps).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function statuses(count: number, path: string, headers: Record<string, string>): Promise<Response[]> {
    const answers: Response[] = [];
    for (let i = 0; i < count; i++) answers.push(await fetch(`${base}${path}`, { headers }));
    return answers;
  }

  it('limits each API key on its own: the 6th request of a key is 429 error object with Retry-After, another key still passes', async () => {
    const [a, b] = [await harness().bootstrap(), await harness().bootstrap()];
    const answers = await statuses(8, '/v1/qrs/tra_unknown', { 'X-API-Key': a.apiKey });
    // A minute boundary inside the loop carries the count over (sliding window): still limited.
    expect(answers.map((r) => r.status)).to.deep.equal([404, 404, 404, 404, 404, 429, 429, 429]);
    const limited = answers[5]!;
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 120);
    const body = (await limited.json()) as { error: { code: string; request_id: string } };
    expect(body.error.code).to.equal('rate_limited');
    expect(body.error.request_id).to.equal(limited.headers.get('x-request-id'));
    expect((await fetch(`${base}/v1/qrs/tra_unknown`, { headers: { 'X-API-Key': b.apiKey } })).status).to.equal(404);
    // The key itself is not in Redis: only a hash of it names the counter.
    const keys = await harness().redis.keys('rl:api-key:*');
    expect(keys.join(' ')).to.not.include(a.apiKey.slice(8, 30));
  });

  it('limits the bearer-token management routes per client IP; the buyer routes keep their own limits', async () => {
    const account = await harness().bootstrap();
    await harness().redis.del(...(await harness().redis.keys('rl:mgmt-ip:*')), 'rl:none');
    const answers = await statuses(6, '/v1/webhooks/endpoints', { Authorization: `Bearer ${account.accessToken}` });
    expect(answers.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 429, 429]);
    // Not counted: the buyer's public routes (their own, stricter limits), health and the OpenAPI document.
    expect((await fetch(`${base}/openapi.json`)).status).to.equal(200);
    expect((await fetch(`${base}/v1/public/qrs/status?v=1&t=x&m=y`)).status).to.not.equal(429);
  });

  it('Retry-After says when the sliding estimate is back under the limit', () => {
    // 10 last minute, 0 this minute, limit 5, at the start of the minute: last minute's share must fade to 5 → 30 s.
    expect(retryAfterSeconds({ previous: 10, current: 0 }, 0, 5)).to.equal(30);
    // This minute alone is over (8 > 4) half-way through: 30 s to the next minute, then 8 × (1 − f) ≤ 4 at f = 0.5: 60 s.
    expect(retryAfterSeconds({ previous: 0, current: 8 }, 0.5, 4)).to.equal(60);
    expect(retryAfterSeconds({ previous: 100, current: 1 }, 0.999, 5)).to.be.within(1, 120);
  });
});
