import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { freePort } from '../../../chaos/free-port.js';
import { startRedisServer, stopProcess } from '../../../chaos/redis-server-process.js';
import type { BootstrapResult } from '../../../cli/bootstrap.js';
import { harness } from '../../helpers/harness.js';
import { qrBody, qrHeaders } from '../../helpers/qr-body.js';
import { configWith, startStackOn, type StackOnRedis } from '../../helpers/stack-on-redis.js';

describe('issue #30: Redis behind Sentinel (REDIS_SENTINELS)', function () {
  this.timeout(60_000);
  let dir: string;
  let master: ChildProcess | undefined;
  let sentinel: ChildProcess | undefined;
  let sentinelPort: number;
  let stack: StackOnRedis | undefined;
  let account: BootstrapResult;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'afh-redis-sentinel-'));
    const masterPort = await freePort();
    sentinelPort = await freePort();
    master = await startRedisServer(['--port', String(masterPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], 'Ready to accept connections');
    // A Sentinel rewrites its configuration file: it must be a writable file of its own.
    await writeFile(join(dir, 'sentinel.conf'), `port ${sentinelPort}\nbind 127.0.0.1\ndir ${dir}\nsentinel monitor afmaster 127.0.0.1 ${masterPort} 1\n`);
    sentinel = await startRedisServer([join(dir, 'sentinel.conf'), '--sentinel'], '+monitor master afmaster');
    account = await harness().bootstrap();
  });

  after(async () => {
    await stack?.close();
    await stopProcess(sentinel);
    await stopProcess(master);
    await rm(dir, { recursive: true, force: true });
  });

  it('finds the master through the Sentinel (REDIS_URL names a port nobody listens on): a QR is created, rendered and replayed', async () => {
    stack = await startStackOn(
      configWith({
        REDIS_URL: 'redis://127.0.0.1:1/0',
        REDIS_SENTINELS: `127.0.0.1:${sentinelPort}`,
        REDIS_SENTINEL_NAME: 'afmaster',
        QUEUE_PREFIX: `${process.env.QUEUE_PREFIX ?? 'aftest'}sen`,
      }),
    );
    const key = randomUUID();
    const body = JSON.stringify(qrBody(account.storeUid));
    const post = async () => {
      const res = await fetch(`${stack!.baseUrl}/v1/qrs`, { method: 'POST', headers: { ...qrHeaders(account, key), 'content-type': 'application/json' }, body });
      return { status: res.status, body: (await res.json()) as { qr_id: string } };
    };
    const first = await post();
    expect(first.status).to.equal(201);
    expect(await harness().deps.db('qr_transactions').where({ id: first.body.qr_id })).to.have.length(1);
    expect(await post()).to.deep.equal(first);
    expect(await stack.redis.keys(`${stack.config.queuePrefix}:idem:*`)).to.not.be.empty;
  });
});
