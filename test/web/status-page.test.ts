import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import type { Page } from 'playwright-core';
import { createApp } from '../../api/app.js';
import { hashAdminPassword } from '../../shared/platform/crypto/admin-password.js';
import { localDateTime, zonedDayStart } from '../../shared/domain/time-zone.js';
import { HOUR_MS } from '../../shared/status/status-figures.js';
import { openDesktop } from '../helpers/browser.js';
import { harness } from '../helpers/harness.js';
import { makeTraffic, moveSales } from '../helpers/status-traffic.js';
import { QUEUES } from '../../shared/platform/jobs.js';

const USER = 'ops';
const PASSWORD = 'correct horse battery staple';
/**
 * Where the picture goes: test-artifacts/ (ignored by git) on every run; `npm run docs:screenshot` sets
 * STATUS_PAGE_SCREENSHOT to refresh the copy docs/operations.md shows.
 */
const SCREENSHOT = resolve(process.env.STATUS_PAGE_SCREENSHOT ?? join('test-artifacts', 'status-page', 'status-page.png'));

/** A small deterministic generator (mulberry32), so every run draws the same day. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** How busy each hour of a day is (UTC): shops in Mexico City (UTC−6) peak at lunch and in the evening. */
const busyness = (utcHour: number) => 0.15 + Math.exp(-(((utcHour - 19 + 24) % 24) ** 2) / 6) + 0.8 * Math.exp(-(((utcHour - 2 + 24) % 24) ** 2) / 5);

/**
 * A day of sales made through the service, then spread over the last 24 hours the way a day goes: each hour
 * gets sales in proportion to how busy it is; stamps take 1–4 s, except in one slow hour of the PAC.
 */
async function aDayOfSales(): Promise<string> {
  const account = await harness().bootstrap();
  const traffic = await makeTraffic(account, { created: 72, scanned: 44, invoiced: 24, refused: 3, expired: 8 });
  const draw = random(20261126);
  const ids = [...traffic.created].sort(() => draw() - 0.5);
  const currentHour = Math.floor(Date.now() / HOUR_MS);
  const hours = Array.from({ length: 24 }, (_, i) => currentHour - 23 + i);
  const weights = hours.map((h) => busyness(h % 24));
  const total = weights.reduce((a, b) => a + b, 0);
  const slowHour = hours[16]!;
  let next = 0;
  for (const [i, hour] of hours.entries()) {
    const share = i === hours.length - 1 ? ids.length - next : Math.round((weights[i]! / total) * ids.length);
    for (const id of ids.slice(next, next + share)) {
      const seconds = hour === slowHour ? 20 + 25 * draw() : 1 + 3 * draw() ** 2;
      await moveSales([id], new Date(hour * HOUR_MS + Math.floor(draw() * 9) * 60_000), seconds);
    }
    next += share;
  }
  return account.merchantId;
}

/** GET /admin/status in Chromium, logged in as the operator: the page renders under its CSP with no script at all. */
describe('the status page (/admin/status) in a browser', function () {
  this.timeout(180_000);
  let server: Server;
  let baseUrl: string;
  let browser: Awaited<ReturnType<typeof openDesktop>>;
  let page: Page;
  let merchantId: string;
  const problems: string[] = [];
  const requests: string[] = [];

  before(async () => {
    const config = { ...harness().deps.config, adminUser: USER, adminPasswordHash: await hashAdminPassword(PASSWORD) };
    server = createApp({ ...harness().deps, config, logger: pino({ level: 'silent' }) }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    merchantId = await aDayOfSales();
    browser = await openDesktop({ viewport: { width: 1280, height: 900 }, httpCredentials: { username: USER, password: PASSWORD, send: 'always' } });
    page = await browser.context.newPage();
    // Injected by the browser driver, not by the page, so the CSP does not apply to it.
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
    });
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('request', (r) => requests.push(r.url()));
  });
  after(async () => {
    await browser?.close();
    server?.close();
  });

  it('charts the day (QRs per hour, stamp latency, refusals) and lists every queue, with no CSP violation, no console error, nothing from elsewhere', async () => {
    const res = await page.goto(`${baseUrl}/admin/status`);
    expect(res?.status()).to.equal(200);
    expect(await page.title()).to.equal('Autofactura status');

    const charts = page.locator('svg[role="img"]');
    expect(await charts.count()).to.equal(6);
    for (const chart of await charts.all()) {
      expect(await chart.locator('rect').count()).to.equal(24);
      const box = await chart.boundingBox();
      expect(box?.width).to.be.above(300);
    }
    // The day's sales show as bars, not as an empty chart.
    const created = page.locator('figure', { hasText: 'Created per hour' }).locator('rect');
    const heights = await created.evaluateAll((rects) => rects.map((r) => Number(r.getAttribute('height'))));
    expect(heights.filter((h) => h > 0).length).to.be.above(12);
    expect(await page.locator('.tile', { hasText: 'refused' }).first().innerText()).to.match(/^[1-9]\d*\s+refused$/);
    expect(await page.locator('tr[data-queue]').count()).to.equal(Object.values(QUEUES).length);

    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    // The hour-by-hour table opens without a script.
    await page.getByText('Hour by hour (UTC), newest first').click();
    expect(await page.locator('tr[data-hour]').first().isVisible()).to.equal(true);
    expect(await page.locator('tr[data-hour]').count()).to.equal(24);

    expect(problems).to.deep.equal([]);
    const origin = new URL(baseUrl).origin;
    expect(requests.filter((u) => new URL(u).origin !== origin && !u.startsWith('data:'))).to.deep.equal([]);
  });

  it('adds up the month of the store named in its form (part of its name, or picked among several), under the same CSP', async () => {
    // Stores are found as the operator knows them (issue #39): a part of the name...
    const name = `Abarrotes Lupita ${merchantId.slice(-6)}`;
    await harness().deps.db('merchants').where({ id: merchantId }).update({ name });
    await page.goto(`${baseUrl}/admin/status`);
    await page.getByLabel('Store').fill(name.slice(10).toLowerCase());
    await Promise.all([page.waitForURL(/merchant=/), page.getByRole('button', { name: 'Add up' }).click()]);
    expect(await page.locator('section:has(#books) p.note').first().innerText()).to.contain(name);
    // ...or the POS's store id, which every test account shares: then the page lists them to pick from.
    await harness().bootstrap();
    await page.getByLabel('Store').fill('dev-store-1');
    await Promise.all([page.waitForURL(/merchant=dev-store-1/), page.getByRole('button', { name: 'Add up' }).click()]);
    expect(await page.locator('li[data-store]').count()).to.be.above(1);
    await Promise.all([page.waitForURL(new RegExp(`merchant=${merchantId}`)), page.locator(`li[data-store="${merchantId}"] a`).click()]);
    expect(new URL(page.url()).searchParams.get('merchant')).to.equal(merchantId);
    const month = localDateTime(new Date(), 'America/Mexico_City').slice(0, 7);
    const [y, m] = month.split('-').map(Number) as [number, number];
    const sales = await harness()
      .deps.db('qr_transactions')
      .where({ merchant_id: merchantId })
      .where('created_at', '>=', zonedDayStart(`${month}-01`, 'America/Mexico_City'))
      .where('created_at', '<', zonedDayStart(new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 10), 'America/Mexico_City'))
      .select('status');
    const recorded = page.locator('tr[data-sales="recorded"] td');
    expect(await recorded.nth(2).innerText()).to.equal(String(sales.length));
    expect(await page.locator('tr[data-sales="invoiced"] td').nth(2).innerText()).to.equal(String(sales.filter((s) => s.status === 'INVOICED').length));
    expect(await page.locator('tr[data-cfdi="I-valid"]').count()).to.equal(1);
    expect(await page.locator('[data-differences]').count()).to.equal(1);

    await page.goto(`${baseUrl}/admin/status?merchant=${encodeURIComponent('<b>x</b>')}`);
    expect(await page.locator('section:has(#books) p.alert').innerText()).to.contain('No store matches "<b>x</b>"');
    expect(await page.locator('section:has(#books) b').count()).to.equal(0);
    expect(await page.getByLabel('Store').inputValue()).to.equal('<b>x</b>');
    expect(problems).to.deep.equal([]);
  });
});
