import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { freePort } from '../../../chaos/free-port.js';
import type { BootstrapResult } from '../../../cli/bootstrap.js';
import { harness } from '../../helpers/harness.js';
import { qrBody, qrHeaders } from '../../helpers/qr-body.js';
import { configWith, startStackOn, type StackOnRedis } from '../../helpers/stack-on-redis.js';

/** Starts a redis-server (or a Sentinel) and resolves once its log says `ready`. */
function startRedis(args: string[], ready: string): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(ready)) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`redis-server ${args.join(' ')} exited (${code}): ${out}`)));
  });
}

async function kill(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await gone;
}

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
    master = await startRedis(['--port', String(masterPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], 'Ready to accept connections');
    // A Sentinel rewrites its configuration file: it must be a writable file of its own.
    await writeFile(join(dir, 'sentinel.conf'), `port ${sentinelPort}\nbind 127.0.0.1\ndir ${dir}\nsentinel monitor afmaster 127.0.0.1 ${masterPort} 1\n`);
    sentinel = await startRedis([join(dir, 'sentinel.conf'), '--sentinel'], '+monitor master afmaster');
    account = await harness().bootstrap();
  });

  after(async () => {
    await stack?.close();
    await kill(sentinel);
    await kill(master);
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
