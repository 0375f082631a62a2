import { QUEUES } from '../../shared/platform/jobs.js';
import { expect } from 'chai';
import { pino } from 'pino';
import { createApp } from '../../api/app.js';
import { connectFailFast } from '../../shared/platform/redis.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';
import { Redis } from 'ioredis';
import { redisOptions } from '../../shared/platform/redis.js';

describe('GET /health', () => {
  it('answers 200 with PostgreSQL, Redis and queue states', async () => {
    const res = await call('GET', '/health');
    expect(res.status).to.equal(200);
    expect(res.body.status).to.equal('ok');
    expect(res.body.postgres.ok).to.equal(true);
    expect(res.body.redis.ok).to.equal(true);
    expect(res.body.queues).to.have.all.keys(...Object.values(QUEUES));
    expect(res.body.queues.render).to.have.property('waiting');
  });

  it('answers 503 when Redis is unreachable', async () => {
    const dead = new Redis({ ...redisOptions('fail-fast', 'redis://127.0.0.1:1/0'), retryStrategy: () => null });
    dead.on('error', () => undefined);
    await dead.connect().catch(() => undefined);
    const app = createApp({ ...harness().deps, redis: dead, logger: pino({ level: 'silent' }) });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const port = (server.address() as { port: number }).port;
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      const body = (await res.json()) as { status: string; redis: { ok: boolean }; postgres: { ok: boolean } };
      expect(res.status).to.equal(503);
      expect(body.status).to.equal('unavailable');
      expect(body.redis.ok).to.equal(false);
      expect(body.postgres.ok).to.equal(true);
    } finally {
      server.close();
      dead.disconnect();
    }
  });

  it('a fail-fast connection rejects commands at once while Redis is away', async () => {
    const client = await connectFailFast(harness().deps.config.redisUrl);
    client.disconnect();
    let failed = false;
    await client.ping().catch(() => {
      failed = true;
    });
    expect(failed).to.equal(true);
  });
});
