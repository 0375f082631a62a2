import type { Server } from 'node:http';
import { Job, Worker } from 'bullmq';
import { expect } from 'chai';
import { pino } from 'pino';
import { createApp } from '../../api/app.js';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { hashAdminPassword } from '../../shared/platform/crypto/admin-password.js';
import { QUEUES } from '../../shared/platform/jobs.js';
import { createProducers, type Producers } from '../../shared/platform/queues.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';
import { makeTraffic, moveSales } from '../helpers/status-traffic.js';
import { removeServiceKeys } from '../helpers/redis-keys.js';

const USER = 'ops';
const PASSWORD = 'correct horse battery staple';
const FAILURES_ALLOWED = 3;
const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
const OPERATOR = basic(USER, PASSWORD);
const HOUR_MS = 3_600_000;

async function forgetFailedLogins(): Promise<void> {
  await removeServiceKeys(harness().redis, 'rl:admin-login:*');
}

/** The cells of a table row the page marks with `attribute="value"`, as the operator reads them. */
function rowCells(html: string, attribute: string, value: string): string[] {
  const row = new RegExp(`<tr ${attribute}="${value}">(.*?)</tr>`).exec(html)?.[1];
  if (row === undefined) throw new Error(`no row ${attribute}=${value}`);
  return [...row.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map(([, cell]) => cell!.replace(/<[^>]+>/g, ''));
}

const HOUR_COLUMNS = ['hour', 'created', 'scanned', 'invoiced', 'expired', 'stamped', 'p50', 'p95', 'refused'] as const;
const hourRow = (html: string, hour: Date) =>
  Object.fromEntries(rowCells(html, 'data-hour', hour.toISOString()).map((cell, i) => [HOUR_COLUMNS[i], cell])) as Record<(typeof HOUR_COLUMNS)[number], string>;
const QUEUE_COLUMNS = ['queue', 'waiting', 'active', 'delayed', 'scheduled', 'failed', 'oldest'] as const;
const queueRow = (html: string, queue: string) =>
  Object.fromEntries(rowCells(html, 'data-queue', queue).map((cell, i) => [QUEUE_COLUMNS[i], cell])) as Record<(typeof QUEUE_COLUMNS)[number], string>;

describe('the status page at /admin/status (issue #21)', () => {
  // Its own queue prefix: nothing works these queues, so their depths are what the test made them.
  const prefix = `adminst${process.pid}`;
  let producers: Producers;
  let server: Server;
  let baseUrl: string;
  let account: BootstrapResult;

  async function get(path: string, headers: Record<string, string> = {}) {
    const res = await fetch(`${baseUrl}${path}`, { headers });
    const type = res.headers.get('content-type') ?? '';
    return { status: res.status, headers: res.headers, body: type.includes('json') ? await res.json() : await res.text() };
  }
  const page = async () => {
    const res = await get('/admin/status', OPERATOR);
    expect(res.status).to.equal(200);
    return String(res.body);
  };

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
    expectError(await call('GET', '/admin/status', { headers: OPERATOR }), 404, 'not_found');
  });

  it("answers 401 with a Basic challenge to anything but the operator's login, under the page's CSP", async () => {
    const attempts: Record<string, Record<string, string>> = {
      'no credential': {},
      'a wrong password': basic(USER, `${PASSWORD}!`),
      'a wrong user': basic('root', PASSWORD),
      'an API key': { 'X-API-Key': account.apiKey },
      'a bearer token': { Authorization: `Bearer ${account.accessToken}` },
    };
    for (const [what, headers] of Object.entries(attempts)) {
      const res = await get('/admin/status', headers);
      expectError(res, 401, 'unauthorized');
      expect(res.headers.get('www-authenticate'), what).to.equal('Basic realm="ops"');
      expect(res.headers.get('content-security-policy'), what).to.contain("default-src 'none'");
    }
  });

  it('shares the failed-login count with the queue dashboard: locked out there, locked out here', async () => {
    for (let i = 0; i < FAILURES_ALLOWED; i++) expect((await get('/admin/queues', basic(USER, `guess-${i}`))).status).to.equal(401);
    const res = await get('/admin/status', OPERATOR);
    expectError(res, 429, 'rate_limited');
    expect(Number(res.headers.get('retry-after'))).to.be.within(1, 15 * 60);
  });

  it('shows the QRs created, scanned, invoiced and expired, the stamps and the refusals of an hour, from PostgreSQL', async function () {
    this.timeout(120_000);
    // Three hours ago, early in the hour: the test's sales are moved there, where nothing else happens meanwhile.
    const hour = new Date((Math.floor(Date.now() / HOUR_MS) - 3) * HOUR_MS);
    const before = hourRow(await page(), hour);
    const traffic = await makeTraffic(account, { created: 5, scanned: 3, invoiced: 1, refused: 1, expired: 1 });
    await moveSales(traffic.created, new Date(hour.getTime() + 60_000), 42);
    const after = hourRow(await page(), hour);
    const grew = (column: 'created' | 'scanned' | 'invoiced' | 'expired' | 'stamped' | 'refused') => Number(after[column]) - Number(before[column]);
    expect({
      created: grew('created'),
      scanned: grew('scanned'),
      invoiced: grew('invoiced'),
      expired: grew('expired'),
      stamped: grew('stamped'),
      refused: grew('refused'),
    }).to.deep.equal({
      created: 5,
      scanned: 3,
      invoiced: 1,
      expired: 1,
      stamped: 1,
      refused: 1,
    });
    expect(after.hour).to.equal(hour.toISOString().slice(11, 16));
    expect(after.p95).to.match(/^\d+(\.\d)? (s|min)$/);
    // The day's refusal codes name the PAC's.
    expect(await page()).to.match(/<code>CFDI40145<\/code> × \d+/);
  });

  it('shows every queue of QUEUES with its waiting, delayed and failed jobs, and the failed stamp jobs among the stamping figures', async () => {
    const email = producers.queue(QUEUES.email);
    await Promise.all(['inv-1', 'inv-2', 'inv-3'].map((invoiceId) => email.add('email-invoice', { invoiceId })));
    await producers.queue(QUEUES.webhooks).add('deliver-webhook', { deliveryId: 'whd-1' }, { delay: 600_000 });
    await producers.queue(QUEUES.stamp).add('stamp-invoice', { invoiceId: 'inv-lost' });
    // A periodic sweep, as keep-job-schedulers.ts makes them: its next run is no delayed work (issue #29).
    await producers.queue(QUEUES.expiry).upsertJobScheduler('test-sweep', { every: 3_600_000, startDate: Date.now() + 600_000 }, { name: 'expire-due-qrs', data: {} });
    // Worked by hand, so the job fails exactly when the test says so.
    const worker = new Worker(QUEUES.stamp, null, { connection: { url: harness().deps.config.redisUrl, maxRetriesPerRequest: null }, prefix });
    try {
      const job = (await worker.getNextJob('test-lock')) as Job;
      await job.moveToFailed(new Error('PAC gave up'), 'test-lock');
    } finally {
      await worker.close();
    }

    const html = await page();
    for (const queue of Object.values(QUEUES)) expect(queueRow(html, queue).queue).to.equal(queue);
    expect(queueRow(html, QUEUES.email)).to.include({ waiting: '3', active: '0', delayed: '0', failed: '0' });
    expect(queueRow(html, QUEUES.email).oldest).to.match(/ s$/);
    expect(queueRow(html, QUEUES.webhooks)).to.include({ waiting: '0', delayed: '1' });
    expect(queueRow(html, QUEUES.stamp)).to.include({ waiting: '0', failed: '1' });
    expect(queueRow(html, QUEUES.expiry)).to.include({ waiting: '0', delayed: '0', scheduled: '1' });
    expect(queueRow(html, QUEUES.webhooks)).to.include({ scheduled: '0' });
    expect(html).to.match(/<b>1<\/b><span>stamp jobs failed for good<\/span>/);
  });

  it('is a page without a script: one style element allowed by its hash, nothing else from anywhere', async () => {
    const res = await get('/admin/status', OPERATOR);
    const html = String(res.body);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(csp).to.match(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*';/);
    expect(csp).to.not.contain('script-src');
    expect(html).to.not.match(/<script|\sstyle=|\son\w+=/i);
    expect(html.match(/<svg /g)).to.have.length(6);
  });

  it("takes a month it can add up in the books form; a year past the books' range is today's month, not a 500 (issue #39)", async () => {
    for (const month of ['9999-12', '0000-01', '1969-12']) {
      const res = await get(`/admin/status?merchant=${account.merchantId}&month=${month}`, OPERATOR);
      expect(res.status, month).to.equal(200);
    }
  });

  it('shows offline tickets (claims waiting and refused, keys) and ZIP exports (by state, their bytes) (issue #39)', async () => {
    const before = await page();
    const figure = (html: string, name: string) => new RegExp(`data-figure="${name}"[^>]*>([^<]*)`).exec(html)?.[1] ?? '';
    const waitingBefore = Number(/^([\d,]+)/.exec(figure(before, 'claims-waiting'))?.[1]?.replace(/,/g, '') ?? NaN);
    const key = await call('POST', `/v1/qrs/merchants/${account.merchantId}/offline-keys`, { headers: { Authorization: `Bearer ${account.accessToken}` }, body: {} });
    expect(key.status).to.equal(201);
    await harness()
      .deps.db('offline_claims')
      .insert({
        key_id: (key.body as { keyId: string }).keyId,
        sale_id: `claim-${Date.now()}`,
        merchant_id: account.merchantId,
        amount: '116.000000',
        sold_at: new Date(),
        closes_at: new Date(Date.now() + 3 * 3600_000),
        customer: JSON.stringify({ rfc: 'URE180429TM6' }),
      });
    const after = await page();
    expect(figure(after, 'claims-waiting')).to.match(new RegExp(`^${(waitingBefore + 1).toLocaleString('en-US')} buyers' claims waiting for their sale \\(the next closes in `));
    expect(figure(after, 'keys')).to.match(/^[\d,]+ offline keys in use, [\d,]+ revoked in the last 24 hours$/);
    expect(after).to.match(/data-figure="exports">ZIP exports kept: [\d,]+ pending, [\d,]+ building, [\d,]+ ready \([\d.]+ MB in the file store\)/);
  });
});
