import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import type { Page } from 'playwright-core';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { offlineTicket } from '../../clients/typescript/src/offline-ticket.js';
import { jobId } from '../../shared/platform/jobs.js';
import { csfPdf, XOCHILT } from '../fixtures/csf/csf-documents.js';
import { BUYER, queueEvents } from '../helpers/buyer.js';
import { openPhone, screenshot } from '../helpers/browser.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';
import { postQr, qrBody } from '../helpers/qr-body.js';

/**
 * The page of an offline ticket whose sale the store has not sent yet (issue #33), in Debian's chromium at a
 * phone's viewport against the real stack: what the ticket says, the buyer's data left for when the sale
 * arrives, and the sale's own page once it has.
 */
describe("an offline ticket's waiting page in a phone browser (issue #33)", function () {
  this.timeout(150_000);
  let account: BootstrapResult;
  let key: { offlineKey: string; linkBaseUrl: string };
  let phone: Awaited<ReturnType<typeof openPhone>>;
  let page: Page;
  let events: QueueEvents;

  before(async () => {
    account = await harness().bootstrap();
    const issued = await call('POST', `/v1/qrs/merchants/${account.merchantId}/offline-keys`, { headers: { Authorization: `Bearer ${account.accessToken}` }, body: {} });
    expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
    key = issued.body;
    events = await queueEvents('stamp');
    phone = await openPhone();
    page = await phone.context.newPage();
  });
  after(async () => {
    await phone?.close();
    await events?.close();
  });

  async function fill(data: Partial<typeof BUYER>): Promise<void> {
    const c = { ...BUYER, ...data };
    await page.fill('#rfc', c.rfc);
    await page.fill('#name', c.name);
    await page.selectOption('#tax_regime', c.tax_regime);
    await page.fill('#postal_code', c.postal_code);
    await page.selectOption('#cfdi_use', c.cfdi_use);
    await page.fill('#email', c.email);
  }

  it("shows the ticket, takes the buyer's data (refusals at their field) and hands over to the sale's page once the store sends it", async () => {
    const sale = qrBody(account.storeUid);
    const ticket = offlineTicket(key.offlineKey, key.linkBaseUrl, { saleId: sale.sale_id, amount: sale.amount });
    const link = new URL(ticket.link);
    const claims = () => harness().deps.db('offline_claims').where({ sale_id: sale.sale_id });

    const res = await page.goto(`${harness().baseUrl}${link.pathname}${link.search}`);
    expect(res?.status()).to.equal(404);
    expect(res?.headers()['content-security-policy']).to.contain("script-src 'self'");
    await page.waitForLoadState('networkidle');
    expect(await page.locator('h1').innerText()).to.equal('La tienda aún no envía esta compra');
    const merchant = await harness().deps.db('merchants').where({ id: account.merchantId }).first('name');
    expect(await page.locator('#offline-ticket').innerText())
      .to.contain(merchant.name)
      .and.contain(sale.sale_id)
      .and.contain('$302.32 MXN')
      .and.contain('La tienda puede enviarla');
    // The lists follow the RFC as on the sale's page.
    await page.fill('#rfc', 'ure180429tm6');
    expect(await page.inputValue('#rfc')).to.equal('URE180429TM6');
    const regimes = await page.locator('#tax_regime option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(regimes).to.include('601').and.not.include('605');
    await screenshot(page, '20-offline-waiting');
    // The buyer's CSF fills the form here as on the sale's page (issue #39).
    await page.setInputFiles('#csf-file', { name: 'constancia.pdf', mimeType: 'application/pdf', buffer: await csfPdf(XOCHILT) });
    await page.waitForFunction(() => /^Listo/.test(document.getElementById('csf-note')?.textContent ?? ''), undefined, { timeout: 60_000 });
    expect(await page.inputValue('#rfc')).to.equal(XOCHILT.rfc);
    expect(await page.inputValue('#name')).to.equal(XOCHILT.name);
    expect(await page.inputValue('#postal_code')).to.equal(XOCHILT.zip);

    // An RFC with no real date of birth: the service's refusal next to the RFC field, the data kept.
    const email = `juana-${randomUUID()}@example.test`;
    await fill({ rfc: 'URE189929TM6', email });
    await page.click('#leave-data');
    await page.waitForSelector('#rfc[aria-invalid="true"]');
    expect(await page.locator('#err-rfc').innerText()).to.contain('Escribe un RFC válido');
    expect(await page.locator('#form-error').innerText()).to.contain('Revisa los datos marcados');
    expect(await page.inputValue('#email')).to.equal(email);
    expect(await claims()).to.have.length(0);
    await screenshot(page, '21-offline-field-error');

    await page.fill('#rfc', BUYER.rfc);
    await page.selectOption('#tax_regime', BUYER.tax_regime);
    await page.selectOption('#cfdi_use', BUYER.cfdi_use);
    await page.click('#leave-data');
    await page.waitForSelector('#claim-step:not([hidden])');
    expect(await page.locator('#claim-note').innerText()).to.equal('Te enviaremos la factura a j•••@example.test cuando la tienda envíe la compra.');
    expect(await page.locator('#fill-step').isHidden()).to.equal(true);
    expect((await claims()).map((c) => [c.status, c.customer.email])).to.deep.equal([['WAITING', email]]);
    await screenshot(page, '22-offline-data-left');

    // The same buyer corrects their e-mail from this browser (it holds the claim's token, issue #39).
    const corrected = `juana-bis-${randomUUID()}@example.test`;
    await page.click('#claim-edit');
    await page.fill('#email', corrected);
    await page.click('#leave-data');
    await page.waitForSelector('#claim-step:not([hidden])');
    expect((await claims()).map((c) => [c.status, c.customer.email])).to.deep.equal([['WAITING', corrected]]);

    // Another phone with the same ticket is told at once that someone else holds it; nothing changes.
    const stranger = await openPhone();
    try {
      const other = await stranger.context.newPage();
      await other.goto(`${harness().baseUrl}${link.pathname}${link.search}`);
      await other.fill('#rfc', BUYER.rfc);
      await other.fill('#name', BUYER.name);
      await other.selectOption('#tax_regime', BUYER.tax_regime);
      await other.fill('#postal_code', BUYER.postal_code);
      await other.selectOption('#cfdi_use', BUYER.cfdi_use);
      await other.fill('#email', `intruder-${randomUUID()}@example.test`);
      await other.click('#leave-data');
      await other.waitForSelector('#form-error:not(:empty)');
      expect(await other.locator('#form-error').innerText()).to.contain('Otra persona ya dejó datos fiscales para este ticket');
      expect(await other.locator('#claim-step').isHidden()).to.equal(true);
    } finally {
      await stranger.close();
    }
    expect((await claims()).map((c) => c.customer.email)).to.deep.equal([corrected]);

    // The store is back: the same link now leads to the sale's own page, and the data left is used.
    const caught = await postQr(account, { ...sale, offline_ticket: ticket.link });
    expect(caught.status, JSON.stringify(caught.body)).to.equal(201);
    const reloaded = await page.reload();
    const saleLink = new URL(caught.body.qr_content as string);
    expect(page.url()).to.equal(`${harness().baseUrl}${saleLink.pathname}${saleLink.search}`);
    expect(reloaded?.request().redirectedFrom()?.url()).to.equal(`${harness().baseUrl}${link.pathname}${link.search}`);
    expect(await page.locator('.sale').innerText()).to.contain('Gasolina regular');
    // The settle job is queued before the sale's 201 and removed once done: gone means settled.
    const settle = await harness()
      .producers.queue('stamp')
      .getJob(jobId.settleOfflineClaimsOf(caught.body.qr_id as string));
    if (settle) await settle.waitUntilFinished(events, 30_000);
    expect((await claims()).map((c) => c.status)).to.deep.equal(['CONFIRMED']);
  });
});
