import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { freePort } from '../../chaos/free-port.js';
import { harness } from '../helpers/harness.js';
import { qrBody } from '../helpers/qr-body.js';
import { BUYER } from '../helpers/buyer.js';
import { removeKeysMatching } from '../helpers/redis-keys.js';

/**
 * PgBouncer (Debian's, 1.18) in transaction mode between the service and PostgreSQL (issue #30): each
 * transaction may run on another server connection, so a statement prepared by name on one is unknown
 * (or already taken) on the next. DB_PREPARED_STATEMENTS=0 sends the hot paths' statements unnamed.
 */
const PGBOUNCER = '/usr/sbin/pgbouncer';
const root = new URL('../../', import.meta.url).pathname;

interface Bouncer {
  port: number;
  process: ChildProcess;
  dir: string;
}

/** PgBouncer on a free loopback port: trust, transaction mode, every database of 127.0.0.1:5432, and `probe` with one server connection. */
async function startPgBouncer(database: string): Promise<Bouncer> {
  const dir = mkdtempSync(join(tmpdir(), 'pgbouncer-'));
  const port = await freePort();
  writeFileSync(join(dir, 'userlist.txt'), '"postgres" ""\n');
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `probe = host=127.0.0.1 port=5432 dbname=${database} pool_size=1`,
      '* = host=127.0.0.1 port=5432',
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      'default_pool_size = 10',
      'max_client_conn = 500',
      'ignore_startup_parameters = extra_float_digits,options',
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root: as root it is told to switch to postgres, who must read its files.
  chmodSync(dir, 0o755);
  const asRoot = process.getuid?.() === 0 ? ['-u', 'postgres'] : [];
  const child = spawn(PGBOUNCER, [...asRoot, join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  for (let i = 0; i < 100; i++) {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/${database}` });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return { port, process: child, dir };
    } catch {
      if (child.exitCode !== null) throw new Error(`pgbouncer exited: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`pgbouncer never accepted a connection: ${stderr}`);
}

async function answer(res: Response): Promise<{ status: number; body: Record<string, unknown> }> {
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

(existsSync(PGBOUNCER) ? describe : describe.skip)('PgBouncer in transaction mode (issue #30)', function () {
  // npm start on a fresh database through the pooler: migrations, then the development account; 15-60 s on a loaded machine.
  this.timeout(180_000);
  let database = '';
  let bouncer: Bouncer;

  before(async () => {
    database = `${new URL(harness().deps.config.databaseUrl).pathname.slice(1)}_bouncer_${process.pid}`;
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:5432/postgres` });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${database}"`);
    await admin.end();
    bouncer = await startPgBouncer(database);
  });

  after(async () => {
    bouncer?.process.kill('SIGTERM');
    if (bouncer) await new Promise((resolve) => (bouncer.process.exitCode === null ? bouncer.process.once('exit', resolve) : resolve(undefined)));
    if (bouncer) rmSync(bouncer.dir, { recursive: true, force: true });
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:5432/postgres` });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.end();
  });

  it('breaks named prepared statements: a second client handed the same server connection is told the name is taken', async () => {
    const url = `postgres://postgres@127.0.0.1:${bouncer.port}/probe`;
    const [a, b] = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
    await Promise.all([a.connect(), b.connect()]);
    try {
      await a.query({ name: 'find_qr_transaction_v1', text: 'SELECT 1 AS one', values: [] });
      const refused = await b.query({ name: 'find_qr_transaction_v1', text: 'SELECT 1 AS one', values: [] }).then(
        () => undefined,
        (err: { code?: string; message: string }) => err,
      );
      expect(refused?.code, refused?.message).to.equal('42P05'); // prepared statement "find_qr_transaction_v1" already exists
      // Unnamed, as DB_PREPARED_STATEMENTS=0 sends them, both work.
      expect((await b.query({ text: 'SELECT 1 AS one', values: [] })).rows).to.deep.equal([{ one: 1 }]);
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  it('with DB_PREPARED_STATEMENTS=0, npm start through PgBouncer migrates, sells, confirms and stamps', async () => {
    const port = await freePort();
    const fakes = mkdtempSync(join(tmpdir(), 'bouncer-fakes-'));
    const env = {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `postgres://postgres@127.0.0.1:${bouncer.port}/${database}`,
      DB_PREPARED_STATEMENTS: '0',
      REDIS_URL: harness().deps.config.redisUrl,
      QUEUE_PREFIX: `${harness().deps.config.queuePrefix}bouncer`,
      FAKE_DATA_DIR: fakes,
      FILE_STORE_DIR: join(fakes, 'files'),
      WORKER_METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    };
    const service = spawn(process.execPath, ['--import', 'tsx', 'bin/start.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    service.stdout!.on('data', (chunk: Buffer) => void (out += chunk.toString()));
    service.stderr!.on('data', (chunk: Buffer) => void (err += chunk.toString()));
    try {
      // The development account's credentials, printed once after the migrations (all through PgBouncer).
      const credentials = await new Promise<{ apiKey: string; storeUid: string }>((resolve, reject) => {
        const check = () => {
          const json = /created; shown once:\n(\{[\s\S]*?\n\})/.exec(out)?.[1];
          if (json) resolve(JSON.parse(json) as { apiKey: string; storeUid: string });
        };
        service.stdout!.on('data', check);
        service.once('exit', (code) => reject(new Error(`npm start exited (${code}): ${err}`)));
        check();
      });
      const base = `http://127.0.0.1:${port}`;
      const created = await answer(
        await fetch(`${base}/v1/qrs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'X-API-Key': credentials.apiKey, 'X-TIME-ZONE': 'America/Mexico_City', 'idempotency-key': crypto.randomUUID() },
          body: JSON.stringify(qrBody(credentials.storeUid)),
        }),
      );
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const qrId = created.body.qr_id as string;
      const link = new URL(created.body.qr_content as string);
      const buyer = { v: link.searchParams.get('v'), t: link.searchParams.get('t'), m: link.searchParams.get('m'), customer: BUYER };
      const post = async (path: string, body: unknown) =>
        answer(await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
      const preview = await post('/v1/public/qrs/preview', buyer);
      expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
      const confirmed = await post('/v1/public/qrs/confirm', { ...buyer, review_digest: preview.body.review_digest });
      expect(confirmed.status, JSON.stringify(confirmed.body)).to.be.oneOf([200, 201, 202]);

      // The stamp worker (another process's connections, the same pooler) stamps it: the merchant's GET shows INVOICED.
      let status = '';
      for (const started = Date.now(); status !== 'INVOICED' && Date.now() - started < 60_000;) {
        const qr = await answer(await fetch(`${base}/v1/qrs/${qrId}`, { headers: { 'X-API-Key': credentials.apiKey } }));
        expect(qr.status).to.equal(200);
        status = qr.body.status as string;
        if (status !== 'INVOICED') await new Promise((resolve) => setTimeout(resolve, 200)); // another process: polled
      }
      expect(status, err).to.equal('INVOICED');
      expect(err).to.not.match(/prepared statement/);
    } finally {
      service.kill('SIGTERM');
      if (service.exitCode === null) await new Promise((resolve) => service.once('exit', resolve));
      rmSync(fakes, { recursive: true, force: true });
      await removeKeysMatching(harness().redis, `${env.QUEUE_PREFIX}:*`);
    }
  });
});
