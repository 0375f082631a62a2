import type { Server } from 'node:http';
import { expect } from 'chai';
import { pino } from 'pino';
import { createApp } from '../../api/app.js';
import type { ApiDeps } from '../../api/deps.js';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { principalsChanged } from '../../shared/platform/principal-generation.js';
import { createProducers } from '../../shared/platform/queues.js';
import { redisClient } from '../../shared/platform/redis.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';
import { qrBody, qrHeaders } from '../helpers/qr-body.js';

interface OtherApi {
  url: string;
  deps: ApiDeps;
  close(): Promise<void>;
}

/** Another API process on the harness's PostgreSQL and Redis: its own deps, hence its own principal cache. */
async function otherApi(): Promise<OtherApi> {
  const producers = await createProducers(harness().redis, harness().deps.config);
  const deps: ApiDeps = { ...harness().deps, producers, logger: pino({ level: 'silent' }) };
  const server: Server = createApp(deps).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    deps,
    async close() {
      server.closeAllConnections();
      server.close();
      await producers.close();
    },
  };
}

async function post(url: string, account: BootstrapResult): Promise<{ status: number; body: { qr_id: string; error?: { code: string } } }> {
  const res = await fetch(`${url}/v1/qrs`, {
    method: 'POST',
    headers: { ...qrHeaders(account), 'content-type': 'application/json' },
    body: JSON.stringify(qrBody(account.storeUid)),
  });
  return { status: res.status, body: (await res.json()) as { qr_id: string } };
}

async function getQr(url: string, apiKey: string, qrId: string): Promise<number> {
  return (await fetch(`${url}/v1/qrs/${qrId}`, { headers: { 'X-API-Key': apiKey } })).status;
}

/** Two sales: the first may find no principal generation yet (a fresh Redis) and cache nothing; the second caches. */
async function warm(url: string, account: BootstrapResult): Promise<Awaited<ReturnType<typeof post>>> {
  expect((await post(url, account)).status).to.equal(201);
  const second = await post(url, account);
  expect(second.status).to.equal(201);
  return second;
}

describe('API key principals cached in each API process, dead everywhere at once (issue #31)', function () {
  this.timeout(60_000);
  let other: OtherApi;
  before(async () => {
    other = await otherApi();
  });
  after(async () => {
    await other.close();
  });

  it('regenerating the API key through one API process stops the old key at once in another', async () => {
    const account = await harness().bootstrap();
    const qr = await post(harness().baseUrl, account);
    expect(qr.status).to.equal(201);
    // Both processes have the key's principal cached.
    for (const url of [harness().baseUrl, other.url, harness().baseUrl, other.url]) expect(await getQr(url, account.apiKey, qr.body.qr_id)).to.equal(200);

    const res = await call('PUT', `/v1/qrs/merchants/${account.merchantId}/api-key/regenerate`, { headers: { Authorization: `Bearer ${account.accessToken}` } });
    expect(res.status).to.equal(200);

    expect(await getQr(other.url, account.apiKey, qr.body.qr_id)).to.equal(401);
    expect((await post(other.url, account)).status).to.equal(401);
    expect(await getQr(harness().baseUrl, account.apiKey, qr.body.qr_id)).to.equal(401);
    expect(await getQr(other.url, res.body.apiKey as string, qr.body.qr_id)).to.equal(200);
  });

  it('a merchant deactivated through one API process is refused at once by another, and accepted again once reactivated', async () => {
    const account = await harness().bootstrap();
    await warm(other.url, account);
    const bearer = { Authorization: `Bearer ${account.accessToken}` };

    expect((await call('PUT', `/v1/qrs/merchants/${account.merchantId}/status/inactive`, { headers: bearer })).status).to.equal(200);
    const refused = await post(other.url, account);
    expect(refused.status).to.equal(422);
    expect(refused.body.error?.code).to.equal('merchant_inactive');

    expect((await call('PUT', `/v1/qrs/merchants/${account.merchantId}/status/active`, { headers: bearer })).status).to.equal(200);
    expect((await post(other.url, account)).status).to.equal(201);
  });

  it('a change of the issuer that the principal carries (its global periodicity) is seen at once by another process', async () => {
    const account = await harness().bootstrap();
    await warm(other.url, account);
    const first = await post(other.url, account);
    expect(first.status).to.equal(201);
    const set = await call('PUT', `/v1/qrs/issuers/${account.issuerId}/global-periodicity`, {
      headers: { Authorization: `Bearer ${account.accessToken}` },
      body: { periodicity: '01' },
    });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    const second = await post(other.url, account);
    expect(second.status).to.equal(201);
    const periodicity = (body: unknown) => (body as { global_period: { periodicity: string } }).global_period.periodicity;
    expect(periodicity(first.body)).to.not.equal('01');
    expect(periodicity(second.body)).to.equal('01');
  });

  it('uses a cached principal only while the generation it was read under is current', async () => {
    const account = await harness().bootstrap();
    await warm(other.url, account);
    // A write behind the writers' backs (they all announce theirs): the cached principal is still used…
    await harness().deps.db('merchants').where({ id: account.merchantId }).update({ status: 'INACTIVE' });
    expect((await post(other.url, account)).status).to.equal(201);
    // …until the generation changes, as every writer of a principal's columns makes it after its commit.
    await principalsChanged(harness().deps.redis, pino({ level: 'silent' }));
    expect((await post(other.url, account)).status).to.equal(422);
  });

  it('without an answer from Redis, reads the principal from PostgreSQL: a cache it cannot validate is not trusted', async () => {
    const account = await harness().bootstrap();
    const qr = await warm(other.url, account);
    expect(await getQr(other.url, account.apiKey, qr.body.qr_id)).to.equal(200);
    const live = other.deps.redis;
    const dead = redisClient('fail-fast', `redis://127.0.0.1:1`, { once: true });
    dead.on('error', () => undefined);
    try {
      other.deps.redis = dead;
      await harness().deps.db('api_keys').where({ merchant_id: account.merchantId }).update({ revoked_at: new Date() });
      expect(await getQr(other.url, account.apiKey, qr.body.qr_id)).to.equal(401);
    } finally {
      other.deps.redis = live;
      dead.disconnect();
    }
  });
});
