import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { call } from '../helpers/http.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
/** Loading a whole entry point (tsx, knex, BullMQ, sharp...) has taken 15-50 s on a loaded machine; a hung one is killed. */
const PROCESS_TIMEOUT_MS = 120_000;

async function node(script: string, args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
      timeout: PROCESS_TIMEOUT_MS,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('entry points', function () {
  // The longest test runs three processes one after another.
  this.timeout(3 * PROCESS_TIMEOUT_MS + 10_000);
  it('the API exits with one clear line when PostgreSQL is unreachable', async () => {
    const res = await node('api/main.ts', [], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(res.code).to.equal(1);
    const lines = res.stderr.trim().split('\n');
    expect(lines).to.have.length(1);
    expect(lines[0]).to.match(/^PostgreSQL is not reachable at 127\.0\.0\.1:1 .*pg_ctlcluster/);
  });

  it('the workers exit with one clear line when Redis is unreachable', async () => {
    const res = await node('workers/main.ts', [], { REDIS_URL: 'redis://127.0.0.1:1/0' });
    expect(res.code).to.equal(1);
    const lines = res.stderr.trim().split('\n');
    expect(lines).to.have.length(1);
    expect(lines[0]).to.match(/^Redis is not reachable at 127\.0\.0\.1:1 .*redis-server .*--port 1 /);
  });

  it('the API on a busy port exits with one line that says so and what to do', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as { port: number };
    try {
      const res = await node('api/main.ts', [], { PORT: String(port), HOST: '127.0.0.1', CSF_BASE_URL: 'http://127.0.0.1:9' });
      expect(res.code).to.equal(1);
      const lines = res.stderr.trim().split('\n');
      expect(lines, res.stderr).to.have.length(1);
      expect(lines[0]).to.equal(
        `Port ${port} on 127.0.0.1 is already in use (PORT): another copy of the service may be running; stop it, or start this one with PORT=${port + 1}.`,
      );
    } finally {
      busy.close();
    }
  });

  for (const [entry, name] of [
    ['api/main.ts', 'CSF_BASE_URL'],
    ['workers/main.ts', 'CSF_BASE_URL'],
  ] as const) {
    it(`the production entry ${entry} starts no fake: an empty ${name} exits with one line naming it`, async () => {
      const res = await node(entry, [], { CSF_BASE_URL: '', PAC_BASE_URL: '', SMTP_URL: '', WORKER_METRICS_PORT: '0', PORT: '0' });
      expect(res.code).to.equal(1);
      const lines = res.stderr.trim().split('\n');
      expect(lines, res.stderr).to.have.length(1);
      expect(lines[0]).to.equal(`${name} is empty: set it, or start the development entry (npm start, npm run web, npm run worker), which starts a fake on loopback.`);
    });
  }

  it('cli bootstrap prints one JSON object, twice for the same account, with working API keys', async () => {
    const name = `cli-${process.pid}-${Date.now()}`;
    const first = await node('bin/cli.ts', ['bootstrap', '--json', '--account', name]);
    const second = await node('bin/cli.ts', ['bootstrap', '--json', '--account', name]);
    expect(first.code, first.stderr).to.equal(0);
    expect(second.code, second.stderr).to.equal(0);
    const a = JSON.parse(first.stdout);
    const b = JSON.parse(second.stdout);
    for (const field of ['accessToken', 'groupId', 'issuerId', 'merchantId', 'storeUid', 'apiKey']) expect(a[field], field).to.be.a('string');
    expect(a.groupId).to.match(/^grp_/);
    expect(a.issuerId).to.match(/^inv_data_/);
    expect(a.merchantId).to.match(/^mer_/);
    expect(b.merchantId).to.equal(a.merchantId);
    expect(b.apiKey).to.not.equal(a.apiKey);
    for (const key of [a.apiKey, b.apiKey]) {
      const res = await call('GET', '/v1/qrs/tra_unknown', { headers: { 'X-API-Key': key } });
      expect(res.status).to.equal(404);
    }
  });

  it('cli token create issues a token for an existing account and refuses an unknown one', async () => {
    const name = `cli-token-${process.pid}-${Date.now()}`;
    expect((await node('bin/cli.ts', ['bootstrap', '--json', '--account', name])).code).to.equal(0);
    const ok = await node('bin/cli.ts', ['token', 'create', '--json', '--account', name]);
    expect(ok.code).to.equal(0);
    expect(JSON.parse(ok.stdout).accessToken).to.match(/^at_/);
    const missing = await node('bin/cli.ts', ['token', 'create', '--account', 'nobody-here']);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.include('no account named nobody-here');
  });

  it('cli client-secret issues a new client secret: it gets a token, the previous one no longer does', async () => {
    const name = `cli-secret-${process.pid}-${Date.now()}`;
    const created = JSON.parse((await node('bin/cli.ts', ['bootstrap', '--json', '--account', name])).stdout);
    const res = await node('bin/cli.ts', ['client-secret', '--json', '--account', name]);
    expect(res.code, res.stderr).to.equal(0);
    const rotated = JSON.parse(res.stdout);
    expect(rotated.clientId).to.equal(created.clientId);
    expect(rotated.clientSecret).to.match(/^cs_/);
    const token = (secret: string) => call('POST', '/v1/auth/token', { body: { grant_type: 'client_credentials', client_id: created.clientId, client_secret: secret } });
    expect((await token(rotated.clientSecret)).status).to.equal(200);
    expect((await token(created.clientSecret)).status).to.equal(401);
  });
});
