import type { Server } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import Koa from 'koa';
import { pino } from 'pino';
import type { AppState } from '../../api/context.js';
import { errorHandler } from '../../api/middleware/error-handler.js';
import { requestContext } from '../../api/middleware/request-context.js';
import { connectFailFast, type RedisClient } from '../../shared/platform/redis.js';
import { harness } from '../helpers/harness.js';
import { expectError } from '../helpers/http.js';

/**
 * Issue #38: a Redis failover answered 500. Whatever route meets Redis failing (a job added, a counter
 * read), ioredis' errors for it are an outage: 503 `service_unavailable` with Retry-After, as PostgreSQL's
 * are (issue #8). Each error here is the real one: a command on a closed connection, one past its
 * timeout, and Redis' own replies during a failover (a real server sends them, through a script).
 */
describe('a Redis failing over never answers 500 (issue #38)', () => {
  let server: Server;
  let url: string;
  let closed: RedisClient;
  let silent: ReturnType<typeof createServer>;
  const held = new Set<Socket>();
  let timingOut: Redis;

  before(async () => {
    closed = await connectFailFast(harness().deps.config);
    closed.disconnect();
    // A server that takes the connection and never answers: every command waits out its timeout.
    silent = createServer((socket) => held.add(socket.on('error', () => undefined)));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    timingOut = new Redis({ host: '127.0.0.1', port: (silent.address() as { port: number }).port, commandTimeout: 100, enableReadyCheck: false, maxRetriesPerRequest: 1 });
    timingOut.on('error', () => undefined);

    const app = new Koa<AppState>();
    app.silent = true;
    app.use(requestContext(pino({ level: 'silent' })));
    app.use(errorHandler());
    app.use(async (ctx) => {
      const [, what, arg] = ctx.path.split('/');
      if (what === 'closed') ctx.body = await closed.get('x');
      else if (what === 'timeout') ctx.body = await timingOut.get('x');
      else ctx.body = await harness().redis.eval('return redis.error_reply(ARGV[1])', 0, decodeURIComponent(arg ?? ''));
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  after(async () => {
    server.close();
    timingOut.disconnect();
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  async function get(path: string) {
    const res = await fetch(`${url}${path}`);
    return { status: res.status, body: (await res.json()) as { error: { code: string } }, headers: res.headers };
  }

  for (const [path, what] of [
    ['/closed', 'a command on a connection a failover closed ("Connection is closed.")'],
    ['/timeout', 'a command past its timeout ("Command timed out")'],
    ['/reply/CLUSTERDOWN The cluster is down', 'CLUSTERDOWN'],
    ['/reply/TRYAGAIN Multiple keys request during rehashing of slot', 'TRYAGAIN'],
    ["/reply/READONLY You can't write against a read only replica.", 'READONLY (a master demoted under the client)'],
    ["/reply/MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.", 'MASTERDOWN'],
    ['/reply/LOADING Redis is loading the dataset in memory', 'LOADING (a node restarting)'],
  ] as const) {
    it(`${what}: 503 service_unavailable with Retry-After`, async () => {
      const res = await get(encodeURI(path));
      expectError(res, 503, 'service_unavailable');
      expect(res.headers.get('retry-after')).to.equal('1');
    });
  }

  it('any other Redis error is still a bug: 500 internal_error', async () => {
    expectError(await get(encodeURI('/reply/WRONGTYPE Operation against a key holding the wrong kind of value')), 500, 'internal_error');
  });
});
