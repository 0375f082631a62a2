import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { freePort } from '../../../chaos/free-port.js';
import { startRedisServer, stopProcess } from '../../../chaos/redis-server-process.js';
import type { BootstrapResult } from '../../../cli/bootstrap.js';
import { harness } from '../../helpers/harness.js';
import { qrBody, qrHeaders } from '../../helpers/qr-body.js';
import { configWith, startStackOn, type StackOnRedis } from '../../helpers/stack-on-redis.js';

/** A managed Redis as some providers sell it: `INFO` and `CONFIG` are not available to clients. */
describe('issue #30: a Redis without INFO and CONFIG (REDIS_SKIP_VERSION_CHECK)', function () {
  this.timeout(60_000);
  let dir: string;
  let server: ChildProcess | undefined;
  let url: string;
  let stack: StackOnRedis | undefined;
  let account: BootstrapResult;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'afh-redis-restricted-'));
    const port = await freePort();
    url = `redis://127.0.0.1:${port}/0`;
    server = await startRedisServer([
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--rename-command',
      'INFO',
      '',
      '--rename-command',
      'CONFIG',
      '',
    ]);
    account = await harness().bootstrap();
  });

  after(async () => {
    await stack?.close();
    await stopProcess(server);
    await rm(dir, { recursive: true, force: true });
  });

  it('without the setting the service does not start on it; with REDIS_SKIP_VERSION_CHECK=1 a QR is created, rendered and replayed', async () => {
    const prefix = `${process.env.QUEUE_PREFIX ?? 'aftest'}noinfo`;
    let refused: unknown;
    await startStackOn(configWith({ REDIS_URL: url, QUEUE_PREFIX: prefix })).then(
      (s) => s.close(),
      (err: unknown) => (refused = err),
    );
    expect((refused as Error).name).to.equal('ServiceUnreachable');
    expect((refused as Error).message).to.match(/^Redis is not reachable at 127\.0\.0\.1:\d+ \(REDIS_URL\): .*INFO.* set REDIS_SKIP_VERSION_CHECK=1\.$/);

    stack = await startStackOn(configWith({ REDIS_URL: url, QUEUE_PREFIX: prefix, REDIS_SKIP_VERSION_CHECK: '1' }));
    const key = randomUUID();
    const body = JSON.stringify(qrBody(account.storeUid));
    const post = async () => {
      const res = await fetch(`${stack!.baseUrl}/v1/qrs`, { method: 'POST', headers: { ...qrHeaders(account, key), 'content-type': 'application/json' }, body });
      return { status: res.status, body: (await res.json()) as { qr_id: string } };
    };
    const first = await post();
    expect(first.status).to.equal(201);
    expect(await post()).to.deep.equal(first);
  });
});
