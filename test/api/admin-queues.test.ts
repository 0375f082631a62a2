import { spawn } from 'node:child_process';
import { request, type Server } from 'node:http';
import { Job, Worker } from 'bullmq';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { createApp } from '../../api/app.js';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { hashAdminPassword, parseAdminPasswordHash, verifyAdminPassword } from '../../shared/platform/crypto/admin-password.js';
import { QUEUES } from '../../shared/platform/jobs.js';
import { createProducers, type Producers } from '../../shared/platform/queues.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';
import { removeServiceKeys } from '../helpers/redis-keys.js';

const USER = 'ops';
const PASSWORD = 'correct horse battery staple';
const FAILURES_ALLOWED = 3;
const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
const OPERATOR = basic(USER, PASSWORD);

/** The failed-login counters of this file's client (127.0.0.1): reset so reruns within the window start clean. */
async function forgetFailedLogins(): Promise<void> {
  await removeServiceKeys(harness().redis, 'rl:admin-login:*');
}

describe('the queue dashboard at /admin/queues', () => {
  // Its own queue prefix: nothing works these queues, so job states change only when the test says so.
  const prefix = `adminq${process.pid}`;
  let producers: Producers;
  let server: Server;
  let baseUrl: string;
  let account: BootstrapResult;

  async function get(path: string, headers: Record<string, string> = {}, method = 'GET', body?: string) {
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const type = res.headers.get('content-type') ?? '';
    return { status: res.status, headers: res.headers, body: type.includes('json') ? await res.json() : await res.text() };
  }

  /** A GET from another loopback address than fetch's 127.0.0.1: another client IP, without any forwarded header. */
  function getFrom(localAddress: string, path: string, headers: Record<string, string>): Promise<number> {
    return new Promise((resolve, reject) => {
      request(`${baseUrl}${path}`, { localAddress, headers }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
      })
        .once('error', reject)
        .end();
    });
  }

  before(async () => {
    account = await harness().bootstrap();
    producers = await createProducers(harness().redis, harness().deps.config, prefix);
    const config = { ...harness().deps.config, adminUser: USER, adminPasswordHash: await hashAdminPassword(PASSWORD), adminLoginFailuresPerIp: FAILURES_ALLOWED };
    server = createApp({ ...harness().deps, producers, config, logger: pino({ level: 'silent' }) }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  beforeEach(forgetFailedLogins);
  after(async () => {
    server.close();
    for (const name of Object.values(QUEUES)) await producers.queue(name).obliterate({ force: true });
    await producers.close();
    await forgetFailedLogins();
  });

  it('is off (404) when no ADMIN_PASSWORD_HASH is configured', async function () {
    if (harness().deps.config.adminPasswordHash) this.skip(); // the shell running the suite configured one
    expectError(await call('GET', '/admin/queues'), 404, 'route_not_found');
    expectError(await call('GET', '/admin/queues/api/queues', { headers: OPERATOR }), 404, 'route_not_found');
  });

  for (const path of ['/admin/queues', '/admin/queues/static/images/logo.svg', '/admin/queues/api/queues']) {
    it(`answers 401 with a Basic challenge to ${path} without the operator's credential`, async () => {
      const attempts: Record<string, Record<string, string>> = {
        'no credential': {},
        'a wrong password': basic(USER, `${PASSWORD}!`),
        'a wrong user': basic('root', PASSWORD),
        'an API key': { 'X-API-Key': account.apiKey },
        'a bearer token': { Authorization: `Bearer ${account.accessToken}` },
        'the password as a bearer token': { Authorization: `Bearer ${PASSWORD}` },
      };
      for (const [what, headers] of Object.entries(attempts)) {
        const res = await get(path, headers);
        expect(res.status, what).to.equal(401);
        expectError(res, 401, 'unauthorized');
        expect(res.headers.get('www-authenticate'), what).to.equal('Basic realm="ops"');
        expect(res.headers.get('content-security-policy')).to.include("frame-ancestors 'none'");
      }
    });
  }

  it('serves the page, its static files and its API to the operator', async () => {
    const page = await get('/admin/queues', OPERATOR);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    expect(page.body).to.include('<base href="/admin/queues/"');
    expect(page.headers.get('cache-control')).to.equal('no-store');
    const script = /src="(static\/js\/main\.[^"]+\.js)"/.exec(String(page.body))?.[1];
    expect(script).to.be.a('string');
    const asset = await get(`/admin/queues/${script}`, OPERATOR);
    expect(asset.status).to.equal(200);
    expect(asset.headers.get('content-type')).to.match(/javascript/);
    // Deep links of the single-page app are served the page too.
    expect((await get('/admin/queues/queue/email', OPERATOR)).status).to.equal(200);
  });

  it('lists every queue of shared/platform/jobs.ts', async () => {
    const res = await get('/admin/queues/api/queues', OPERATOR);
    expect(res.status).to.equal(200);
    const names = (res.body as { queues: { name: string }[] }).queues.map((q) => q.name);
    expect(names).to.have.members(Object.values(QUEUES));
  });

  it('retries and cleans failed jobs through bull-board, for the operator only', async () => {
    const email = producers.queue(QUEUES.email);
    const [toRetry, toClean] = await Promise.all(['inv-retry', 'inv-clean'].map((invoiceId) => email.add('email-invoice', { invoiceId })));
    // Worked by hand, so both jobs fail exactly when the test says so.
    const worker = new Worker(QUEUES.email, null, { connection: { url: harness().deps.config.redisUrl, maxRetriesPerRequest: null }, prefix });
    try {
      for (let i = 0; i < 2; i++) {
        const job = (await worker.getNextJob('test-lock')) as Job;
        await job.moveToFailed(new Error('SMTP refused the message'), 'test-lock');
      }
    } finally {
      await worker.close();
    }
    expect(await email.getJobState(toRetry!.id!)).to.equal('failed');

    const listed = await get(`/admin/queues/api/queues?activeQueue=${QUEUES.email}&status=failed`, OPERATOR);
    const emailQueue = (listed.body as { queues: { name: string; counts: { failed: number } }[] }).queues.find((q) => q.name === QUEUES.email);
    expect(emailQueue?.counts.failed).to.equal(2);

    const retryPath = `/admin/queues/api/queues/${QUEUES.email}/${toRetry!.id}/retry`;
    expect((await get(retryPath, { 'X-API-Key': account.apiKey }, 'PUT')).status).to.equal(401);
    expect(await email.getJobState(toRetry!.id!)).to.equal('failed');

    expect((await get(retryPath, OPERATOR, 'PUT')).status).to.equal(204);
    expect(await email.getJobState(toRetry!.id!)).to.equal('waiting');

    expect((await get(`/admin/queues/api/queues/${QUEUES.email}/${toClean!.id}/clean`, OPERATOR, 'PUT')).status).to.equal(204);
    expect(await Job.fromId(email, toClean!.id!)).to.equal(undefined);
    expect(await email.getFailedCount()).to.equal(0);
  });

  it(`answers 429 after ${FAILURES_ALLOWED} wrong passwords from one address, even to the right one`, async () => {
    // A browser's first, credential-less request is no failed login.
    for (let i = 0; i < FAILURES_ALLOWED + 1; i++) expect((await get('/admin/queues')).status).to.equal(401);
    expect((await get('/admin/queues', OPERATOR)).status).to.equal(200);
    for (let i = 0; i < FAILURES_ALLOWED; i++) expect((await get('/admin/queues', basic(USER, `guess-${i}`))).status).to.equal(401);
    for (const headers of [basic(USER, 'one more guess'), OPERATOR]) {
      const res = await get('/admin/queues', headers);
      expectError(res, 429, 'rate_limited');
      expect(Number(res.headers.get('retry-after'))).to.be.within(1, 15 * 60);
    }
  });

  it('still checks the password when Redis cannot count failed logins', async () => {
    // A real client to a port nothing listens on: every command fails at once.
    const deadRedis = new Redis({ port: 1, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    deadRedis.on('error', () => undefined);
    const config = { ...harness().deps.config, adminUser: USER, adminPasswordHash: await hashAdminPassword(PASSWORD), adminLoginFailuresPerIp: 1 };
    const blind = createApp({ ...harness().deps, redis: deadRedis, producers, config, logger: pino({ level: 'silent' }) }).listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => blind.once('listening', resolve));
      const url = `http://127.0.0.1:${(blind.address() as { port: number }).port}/admin/queues/api/queues`;
      for (let i = 0; i < 3; i++) expect((await fetch(url, { headers: basic(USER, `guess-${i}`) })).status).to.equal(401);
      expect((await fetch(url, { headers: OPERATOR })).status).to.equal(200);
    } finally {
      blind.close();
      deadRedis.disconnect();
    }
  });

  describe('writes from other sites (issue #28)', () => {
    const addPath = `/admin/queues/api/queues/${QUEUES.email}/add`;
    const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const JSON_BODY = { 'Content-Type': 'application/json' };
    const evilForm = 'name=csrf-probe&data%5BinvoiceId%5D=inv-1&data%5Bto%5D=attacker%40evil.example';
    const jobJson = (name: string) => JSON.stringify({ name, data: { invoiceId: 'inv-1', to: 'attacker@evil.example' } });
    /** Jobs of that name in the e-mail queue, whatever their state (nothing works this file's queues). */
    const queued = async (name: string) => (await producers.queue(QUEUES.email).getJobs()).filter((job) => job.name === name).length;

    it("refuses a cross-site post with the operator's login before the dashboard sees it, queueing nothing", async () => {
      const attempts: [string, Record<string, string>, string][] = [
        ['a form from another site', { Origin: 'https://evil.example', ...FORM }, evilForm],
        ['JSON from another site', { Origin: 'https://evil.example', ...JSON_BODY }, jobJson('csrf-probe')],
        ['JSON from an opaque origin', { Origin: 'null', ...JSON_BODY }, jobJson('csrf-probe')],
        ['a form referred by another site', { Referer: 'https://evil.example/page', ...FORM }, evilForm],
        ["another port of the service's host", { Origin: `http://127.0.0.1:1`, ...JSON_BODY }, jobJson('csrf-probe')],
      ];
      for (const [what, headers, body] of attempts) {
        const res = await get(addPath, { ...OPERATOR, ...headers }, 'POST', body);
        expect(res.status, `${what}: ${JSON.stringify(res.body)}`).to.equal(403);
        expectError(res, 403, 'cross_origin_refused');
        expect(res.headers.get('content-security-policy'), what).to.include("frame-ancestors 'none'");
      }
      expect((await get(`/admin/queues/api/queues/${QUEUES.email}/pause`, { ...OPERATOR, Origin: 'https://evil.example' }, 'PUT')).status).to.equal(403);
      expect(await producers.queue(QUEUES.email).isPaused()).to.equal(false);
      expect(await queued('csrf-probe')).to.equal(0);
    });

    it("refuses bodies other than JSON, even from the dashboard's own origin", async () => {
      for (const [type, body] of [
        ['application/x-www-form-urlencoded', evilForm],
        ['text/plain', jobJson('csrf-probe')],
        ['multipart/form-data; boundary=x', `--x\r\nContent-Disposition: form-data; name="name"\r\n\r\ncsrf-probe\r\n--x--\r\n`],
      ]) {
        const res = await get(addPath, { ...OPERATOR, Origin: baseUrl, 'Content-Type': type! }, 'POST', body);
        expectError(res, 415, 'unsupported_media_type');
      }
      expect(await queued('csrf-probe')).to.equal(0);
    });

    it("takes the dashboard's own writes: JSON or no body, from its origin or PUBLIC_BASE_URL's", async () => {
      const added = await get(addPath, { ...OPERATOR, Origin: baseUrl, ...JSON_BODY }, 'POST', jobJson('from-the-page'));
      expect(added.status, JSON.stringify(added.body)).to.equal(200);
      const publicOrigin = new URL(harness().deps.config.publicBaseUrl).origin;
      expect((await get(addPath, { ...OPERATOR, Origin: publicOrigin, ...JSON_BODY }, 'POST', jobJson('from-the-page'))).status).to.equal(200);
      const referred = await get(addPath, { ...OPERATOR, Referer: `${baseUrl}/admin/queues/queue/email`, ...JSON_BODY }, 'POST', jobJson('from-the-page'));
      expect(referred.status, JSON.stringify(referred.body)).to.equal(200);
      // A client that names no origin is no browser on another site (curl).
      expect((await get(addPath, { ...OPERATOR, ...JSON_BODY }, 'POST', jobJson('from-the-page'))).status).to.equal(200);
      expect(await queued('from-the-page')).to.equal(4);

      // bull-board's pause and resume are PUTs without a body.
      const pausePath = `/admin/queues/api/queues/${QUEUES.email}/pause`;
      expect((await get(pausePath, { ...OPERATOR, Origin: baseUrl, 'Content-Length': '0' }, 'PUT')).status).to.be.within(200, 204);
      expect(await producers.queue(QUEUES.email).isPaused()).to.equal(true);
      expect((await get(`/admin/queues/api/queues/${QUEUES.email}/resume`, { ...OPERATOR, Origin: baseUrl }, 'PUT')).status).to.be.within(200, 204);
      expect(await producers.queue(QUEUES.email).isPaused()).to.equal(false);
    });
  });

  it(`checks at most ${FAILURES_ALLOWED} of ${3 * FAILURES_ALLOWED} wrong passwords sent at once from one address (issue #28)`, async () => {
    const answers = await Promise.all(Array.from({ length: 3 * FAILURES_ALLOWED }, (_, i) => get('/admin/queues/api/queues', basic(USER, `guess-${i}`))));
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 401).length, String(statuses)).to.be.at.most(FAILURES_ALLOWED);
    expect(
      statuses.filter((s) => s !== 401 && s !== 429),
      String(statuses),
    ).to.deep.equal([]);
    for (const res of answers.filter((r) => r.status === 429)) expectError(res, 429, 'rate_limited');
    // The address stays locked out, even to the right password; another address is not.
    expectError(await get('/admin/queues/api/queues', OPERATOR), 429, 'rate_limited');
    expect(await getFrom('127.0.0.2', '/admin/queues/api/queues', OPERATOR)).to.equal(200);
  });

  it('gives right logins back, whether they come one by one or at once', async () => {
    for (let i = 0; i < 2 * FAILURES_ALLOWED; i++) expect((await get('/admin/queues/api/queues', OPERATOR)).status).to.equal(200);
    // Each holds one attempt while its password is checked: as many as the limit at once all get in.
    const rights = await Promise.all(Array.from({ length: FAILURES_ALLOWED }, () => get('/admin/queues/api/queues', OPERATOR)));
    expect(rights.map((res) => res.status)).to.deep.equal(rights.map(() => 200));
    for (let i = 0; i < FAILURES_ALLOWED; i++) expect((await get('/admin/queues', basic(USER, `guess-${i}`))).status).to.equal(401);
    expectError(await get('/admin/queues', OPERATOR), 429, 'rate_limited');
  });
});

describe('npm run cli -- admin-password', () => {
  const root = new URL('../../', import.meta.url).pathname;

  function cli(stdin: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/cli.ts', 'admin-password'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(stdin);
    return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  }

  it('reads the password from stdin and prints a hash that verifies it, and only it', async () => {
    const { code, stdout, stderr } = await cli(`${PASSWORD}\n`);
    expect(code, stderr).to.equal(0);
    expect(stdout).to.not.include(PASSWORD);
    const hash = parseAdminPasswordHash(stdout.trim());
    expect(await verifyAdminPassword(PASSWORD, hash)).to.equal(true);
    expect(await verifyAdminPassword(`${PASSWORD} `, hash)).to.equal(false);
  });

  it('refuses a short password', async () => {
    const { code, stdout, stderr } = await cli('hunter2\n');
    expect(code).to.equal(2);
    expect(stdout).to.equal('');
    expect(stderr).to.include('at least 12 characters');
  });
});
