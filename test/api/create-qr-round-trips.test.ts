import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { pino } from 'pino';
import { createApp } from '../../api/app.js';
import type { RedisClient } from '../../shared/platform/redis.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';
import { qrBody, qrHeaders } from '../helpers/qr-body.js';

/** The harness's service connection, recording each round trip the API starts on it (a pipeline as one, with its command count). */
function recording(redis: RedisClient, trips: string[]): RedisClient {
  return new Proxy(redis, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      const fn = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        const result = fn.apply(target, args);
        if (name === 'pipeline') {
          const pipeline = result as { length: number; exec(): Promise<unknown> };
          const exec = pipeline.exec.bind(pipeline);
          pipeline.exec = () => {
            trips.push(`pipeline of ${pipeline.length}`);
            return exec();
          };
        } else if (typeof name === 'string' && ['get', 'set', 'multi', 'eval', 'evalsha', 'mget', 'incr', 'del'].includes(name)) trips.push(name);
        return result;
      };
    },
  });
}

describe('POST /v1/qrs: one Redis round trip before the insert (issue #31)', function () {
  this.timeout(60_000);
  const trips: string[] = [];
  let url: string;
  let server: Server;
  before(async () => {
    server = createApp({ ...harness().deps, redis: recording(harness().deps.redis, trips), logger: pino({ level: 'silent' }) }).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const post = async (headers: Record<string, string>, body: unknown) => {
    const res = await fetch(`${url}/v1/qrs`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: (await res.json()) as { qr_id: string; error?: { code: string } } };
  };

  it('a new sale: the rate limits, the principal generation and the idempotency cache in one pipeline of 2 commands; then only the cache write', async () => {
    const account = await harness().bootstrap();
    // The principal generation of the key's group exists from the first (issue #40: a copy per key group), the
    // principal is cached under it from the second.
    for (let i = 0; i < 2; i++) await post(qrHeaders(account), qrBody(account.storeUid));
    trips.length = 0;
    const key = randomUUID();
    const body = qrBody(account.storeUid);
    const first = await post(qrHeaders(account, key), body);
    expect(first.status).to.equal(201);
    // INCRBY of this minute's per-key counter (its EXPIRE only when this INCRBY made it: issue #40); one MGET of
    // the rest (last minute's, the principal generation, the idempotency cache entry); the failed keys' counters
    // only before a PostgreSQL lookup of the key.
    expect(trips).to.deep.equal(['pipeline of 2', 'set']);

    trips.length = 0;
    const again = await post(qrHeaders(account, key), body);
    expect(again.status).to.equal(201);
    expect(again.replayed).to.equal('true');
    expect(again.body.qr_id).to.equal(first.body.qr_id);
    expect(trips).to.deep.equal(['pipeline of 2']);
  });

  it("a replay with the merchant's new key (the cache is by key) is answered from PostgreSQL, as the spec's idempotency rules say", async () => {
    const account = await harness().bootstrap();
    const key = randomUUID();
    const body = qrBody(account.storeUid);
    const first = await post(qrHeaders(account, key), body);
    expect(first.status).to.equal(201);
    const regenerated = await call('PUT', `/v1/qrs/merchants/${account.merchantId}/api-key/regenerate`, { headers: { Authorization: `Bearer ${account.accessToken}` } });
    const renewed = { ...account, apiKey: regenerated.body.apiKey as string };

    const replay = await post(qrHeaders(renewed, key), body);
    expect(replay.status).to.equal(201);
    expect(replay.replayed).to.equal('true');
    expect(replay.body.qr_id).to.equal(first.body.qr_id);
    const reused = await post(qrHeaders(renewed, key), qrBody(account.storeUid));
    expect(reused.status).to.equal(409);
    expect(reused.body.error?.code).to.equal('idempotency_key_reused');
    expect(await harness().deps.db('qr_transactions').where({ merchant_id: account.merchantId }).count<{ count: string }[]>('* as count')).to.deep.equal([{ count: '1' }]);
  });
});
