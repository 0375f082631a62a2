import type { Server } from 'node:http';
import { expect } from 'chai';
import { pino } from 'pino';
import { createApp } from '../../api/app.js';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { hashAdminPassword } from '../../shared/platform/crypto/admin-password.js';
import { offlineTicket } from '../../clients/typescript/src/offline-ticket.js';
import { linkQuery, newQrLink } from '../helpers/buyer.js';
import { openDesktop } from '../helpers/browser.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';

const USER = 'ops';
const PASSWORD = 'correct horse battery staple';

/**
 * Every HTML page the service renders, in Chromium (issue #29): no console error, no CSP violation, no
 * request answered 404 (the browser's own /favicon.ico included), nothing from another origin.
 */
describe('every page the service renders loads cleanly in a browser', function () {
  this.timeout(180_000);
  let server: Server;
  let baseUrl: string;
  let account: BootstrapResult;
  let browser: Awaited<ReturnType<typeof openDesktop>>;

  before(async () => {
    account = await harness().bootstrap();
    const config = { ...harness().deps.config, adminUser: USER, adminPasswordHash: await hashAdminPassword(PASSWORD) };
    server = createApp({ ...harness().deps, config, logger: pino({ level: 'silent' }) }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    browser = await openDesktop({ httpCredentials: { username: USER, password: PASSWORD, send: 'always' } });
  });
  after(async () => {
    await browser?.close();
    server?.close();
  });

  /** `status`: the page's own (an offline ticket's waiting page is a 404); any other 404 is a problem. */
  async function load(path: string, ready: string, status = 200): Promise<{ problems: string[]; notFound: string[]; elsewhere: string[] }> {
    const page = await browser.context.newPage();
    const problems: string[] = [];
    const notFound: string[] = [];
    const elsewhere: string[] = [];
    // Injected by the browser driver, not by the page, so the CSP does not apply to it.
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
    });
    page.on('console', (m) => {
      // The browser reports the page's own 404 as a resource that failed to load: that one is expected.
      const ownStatus = status === 404 && m.location().url === `${baseUrl}${path}` && /status of 404/.test(m.text());
      if (m.type() === 'error' && !ownStatus) problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('request', (r) => {
      if (!r.url().startsWith('data:') && new URL(r.url()).origin !== baseUrl) elsewhere.push(r.url());
    });
    page.on('response', (r) => {
      if (r.status() === 404 && !(r.request().isNavigationRequest() && status === 404)) notFound.push(r.url());
    });
    try {
      const res = await page.goto(`${baseUrl}${path}`, { waitUntil: 'networkidle' });
      expect(res?.status(), path).to.equal(status);
      await page.locator(ready).first().waitFor();
      // The browser asks for the favicon after the load; give it the moment it takes, as a user's tab would.
      await page.waitForLoadState('networkidle');
      return { problems, notFound, elsewhere };
    } finally {
      await page.close();
    }
  }

  const clean = { problems: [], notFound: [], elsewhere: [] };

  it("the buyer's page", async () => {
    const link = await newQrLink(account);
    expect(await load(`/q?${linkQuery(link)}`, 'main')).to.deep.equal(clean);
  });

  it("an offline ticket's waiting page (the sale not sent yet), with its form", async () => {
    const issued = await call('POST', `/v1/qrs/merchants/${account.merchantId}/offline-keys`, { headers: { Authorization: `Bearer ${account.accessToken}` }, body: {} });
    const ticket = offlineTicket(issued.body.offlineKey as string, baseUrl, { saleId: `sale-${Date.now()}`, amount: '116.5' });
    const link = new URL(ticket.link);
    expect(await load(`${link.pathname}${link.search}`, '#tax-form', 404)).to.deep.equal(clean);
  });

  it('the API reference (/docs)', async () => {
    expect(await load('/docs', 'redoc, [role="navigation"], .api-content')).to.deep.equal(clean);
  });

  it('the status page (/admin/status)', async () => {
    expect(await load('/admin/status', 'tr[data-queue]')).to.deep.equal(clean);
  });

  it('the queue dashboard (/admin/queues): its Google Fonts stylesheet is not asked for', async () => {
    expect(await load('/admin/queues', 'header, nav, main')).to.deep.equal(clean);
  });
});
