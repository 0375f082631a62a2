import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { harness } from '../helpers/harness.js';
import { removeKeysMatching } from '../helpers/redis-keys.js';

const root = new URL('../../', import.meta.url).pathname;

/** The README's "Try it" block, exactly as written. */
function tryItBlock(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Try it\n'));
  const match = /```sh\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('README has no sh block under "Try it"');
  return match[1]!;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function processGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('README "Try it", pasted as it is', function () {
  // npm start on a fresh database: migrations, then the development account; 15-60 s on a loaded machine.
  this.timeout(240_000);

  it('starts the service, waits for it, creates a sale and prints qr_content, which opens the buyer page', async () => {
    const port = await freePort();
    const databaseUrl = new URL(harness().deps.config.databaseUrl);
    databaseUrl.pathname = `${databaseUrl.pathname}_try_it_${process.pid}`;
    const fakes = mkdtempSync(join(tmpdir(), 'try-it-'));
    const env = {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(port),
      DATABASE_URL: databaseUrl.toString(),
      REDIS_URL: harness().deps.config.redisUrl,
      QUEUE_PREFIX: `aftest${process.pid}tryit`,
      FAKE_DATA_DIR: fakes,
      WORKER_METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
      PUBLIC_BASE_URL: '',
    };
    const shell = spawn('bash', ['-c', tryItBlock()], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    shell.stdout.on('data', (chunk: Buffer) => void (out += chunk.toString()));
    shell.stderr.on('data', (chunk: Buffer) => void (err += chunk.toString()));
    try {
      const code = await new Promise<number | null>((resolve) => shell.once('exit', resolve));
      expect(code, err).to.equal(0);
      const link = /The buyer opens qr_content \(or qr_url, the QR image\) in a browser:\n {2}(\S+)/.exec(out)?.[1];
      expect(link, out).to.match(new RegExp(`^http://localhost:${port}/q\\?v=1&t=[^&]+&m=`));
      expect(out).to.include('"status": "PENDING"');
      const page = await fetch(link!.replace('localhost', '127.0.0.1'));
      expect(page.status).to.equal(200);
      expect(await page.text()).to.include('Agua 1 L');
    } finally {
      // What `kill %1` does in that shell: SIGTERM to npm start (its own process group here).
      try {
        process.kill(-shell.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
      for (let waited = 0; processGroupAlive(shell.pid!) && waited < 20_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
      if (processGroupAlive(shell.pid!)) process.kill(-shell.pid!, 'SIGKILL');
      rmSync(fakes, { recursive: true, force: true });
      await removeKeysMatching(harness().redis, `${env.QUEUE_PREFIX}:*`);
      const admin = new URL(databaseUrl);
      admin.pathname = '/postgres';
      const client = new pg.Client({ connectionString: admin.toString() });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${databaseUrl.pathname.slice(1)}" WITH (FORCE)`);
      await client.end();
    }
  });
});
