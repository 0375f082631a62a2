import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { csfPdf, csfPhoto, KEMPER, otherPdf, XOCHILT } from '../fixtures/csf/csf-documents.js';
import { BUYER, linkQuery, newQrLink, type QrLink } from '../helpers/buyer.js';
import { openPhone, screenshot } from '../helpers/browser.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';
import { postQr, qrBody } from '../helpers/qr-body.js';

/** The buyer's page in a real browser (Debian's chromium) at a phone's viewport, against the real stack. */
describe('buyer page in a phone browser', function () {
  this.timeout(150_000);
  let account: BootstrapResult;
  let phone: Awaited<ReturnType<typeof openPhone>>;
  let page: Page;

  before(async () => {
    account = await harness().bootstrap();
    await call('PUT', `/v1/qrs/merchants/${account.merchantId}`, {
      headers: { Authorization: `Bearer ${account.accessToken}` },
      body: { contactEmail: 'ayuda@gasolinera.example', contactPhoneNumber: '+52 55 1234 5678' },
    });
    phone = await openPhone();
  });
  after(() => phone?.close());
  beforeEach(async () => {
    page = await phone.context.newPage();
  });
  afterEach(() => page?.close());

  const pageUrl = (link: QrLink) => `${harness().baseUrl}/q?${linkQuery(link)}`;

  async function fill(p: Page, data: Partial<typeof BUYER> = {}): Promise<void> {
    const c = { ...BUYER, ...data };
    await p.fill('#rfc', c.rfc);
    await p.fill('#name', c.name);
    await p.selectOption('#tax_regime', c.tax_regime);
    await p.fill('#postal_code', c.postal_code);
    await p.selectOption('#cfdi_use', c.cfdi_use);
    await p.fill('#email', c.email);
  }

  it("speaks to the buyer in one register (tú) everywhere: page, hidden steps and the script's messages", async () => {
    const link = await newQrLink(account);
    const html = await (await fetch(pageUrl(link))).text();
    const script = await (await fetch(`${harness().baseUrl}/q/assets/buyer-page.js`)).text();
    const usted =
      /\b(usted|ingrese|escriba|revise|intente|espere|pida|descargue|contacte|verifique|seleccione|proporcione|su correo|sus datos|su RFC|su factura|su compra|su código)\b/i;
    expect(usted.exec(html)?.[0], 'page').to.equal(undefined);
    expect(usted.exec(script)?.[0], 'script').to.equal(undefined);
  });

  it('takes the buyer from the sale to the stamped invoice, in one confirming action', async () => {
    const link = await newQrLink(account);
    const requests: { url: string; bytes: number }[] = [];
    page.on('requestfinished', async (req) => {
      const res = await req.response();
      requests.push({ url: req.url(), bytes: (await res?.body().catch(() => Buffer.alloc(0)))?.length ?? 0 });
    });
    const res = await page.goto(pageUrl(link));
    expect(res?.status()).to.equal(200);
    expect(res?.headers()['content-security-policy']).to.contain("default-src 'none'");
    await page.waitForLoadState('networkidle');
    await screenshot(page, '01-review');

    // Review: store, issuer, concepts with SAT descriptions, totals, expiry, support.
    const merchant = await harness().deps.db('merchants').where({ id: account.merchantId }).first('name');
    expect(await page.locator('h1').innerText()).to.contain(merchant.name);
    const sale = await page.locator('.sale').innerText();
    expect(sale).to.contain('ESCUELA KEMPER URGATE').and.contain('EKU9003173C9').and.contain('Gasolina regular').and.contain('Litro');
    expect(await page.locator('#sale-totals').innerText()).to.contain('302.32');
    expect(await page.locator('.expiry').innerText()).to.match(/Puedes facturar hasta el/);
    expect(await page.locator('.support').innerText())
      .to.contain('ayuda@gasolinera.example')
      .and.contain('+52 55 1234 5678');
    expect((await call('GET', `/v1/qrs/${link.qrId}`, { headers: { 'X-API-Key': account.apiKey } })).body.status).to.equal('SCANNED');

    // Light and self-contained: every request to our origin, under 100 KB in all.
    const origin = new URL(harness().baseUrl).origin;
    expect(
      requests.every((r) => new URL(r.url).origin === origin),
      JSON.stringify(requests),
    ).to.equal(true);
    const weight = requests.reduce((sum, r) => sum + r.bytes, 0);
    expect(weight).to.be.below(100 * 1024);
    console.log(`      page weight: ${weight} bytes in ${requests.length} requests`);

    // The regime list follows the RFC's person type, the uses follow the regime.
    await page.fill('#rfc', 'ure180429tm6');
    expect(await page.inputValue('#rfc')).to.equal('URE180429TM6');
    const regimes = await page.locator('#tax_regime option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(regimes).to.include('601').and.not.include('605');
    await fill(page);
    await page.click('#continue');
    await page.waitForSelector('#review-step:not([hidden])');
    expect(await page.locator('#review-totals').innerText()).to.contain('$302.32 MXN');
    await screenshot(page, '02-confirm');

    const started = Date.now();
    await page.click('#confirm');
    await page.waitForSelector('#result-step:not([hidden])', { timeout: 60_000 });
    console.log(`      confirm → invoice on screen: ${Date.now() - started} ms`);
    await screenshot(page, '03-invoice');

    const uuid = (await page.locator('#result-uuid').innerText()).trim();
    const stored = await harness().deps.db('invoices').where({ transaction_id: link.qrId, status: 'ACTIVE' }).first('uuid');
    expect(uuid).to.equal(stored.uuid);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-pdf')]);
    const pdf = readFileSync((await download.path())!);
    expect(pdf.subarray(0, 5).toString()).to.equal('%PDF-');
    // The PDF prints the folio fiscal as the CFDI's stamp writes it (SW's are lower case).
    expect(execFileSync('pdftotext', ['-', '-'], { input: pdf }).toString().toUpperCase()).to.contain(uuid);

    // "Send to my e-mail" queues the invoice to the buyer again.
    const before = harness().smtp.messages.length;
    await page.click('#send-email');
    await page.waitForFunction(() => /enviamos/.test(document.getElementById('email-note')?.textContent ?? ''));
    await harness().smtp.waitForMessages(before + 1, 10_000);

    // Opening the link again shows that the sale is invoiced, and when; the files only for the buyer's RFC.
    const again = await page.goto(pageUrl(link));
    expect(again?.status()).to.equal(409);
    expect(await page.locator('h1').innerText()).to.equal('Factura emitida');
    expect(await page.locator('.uuid').innerText()).to.equal(uuid);
    expect(await page.locator('.invoiced').innerText()).to.contain('Emitida el');
    expect(await page.content()).to.not.contain('/v1/public/invoices/');
    expect(await page.locator('#files-links').isHidden()).to.equal(true);
    await page.fill('#files-rfc', 'EKU9003173C9');
    await page.click('#get-files');
    await page.waitForFunction(() => /no es el de la factura/.test(document.getElementById('files-note')?.textContent ?? ''));
    expect(await page.locator('#files-links').isHidden()).to.equal(true);
    await page.fill('#files-rfc', BUYER.rfc.toLowerCase());
    await page.click('#get-files');
    await page.waitForSelector('#files-links:not([hidden])');
    const [xmlDownload] = await Promise.all([page.waitForEvent('download'), page.click('#download-xml')]);
    expect(readFileSync((await xmlDownload.path())!).toString()).to.contain(`UUID="${uuid.toLowerCase()}"`);
    await screenshot(page, '04-already-invoiced');
  });

  it('adds further tickets by their printed code ("Agregar otro ticket"), shows every ticket and the total, and one confirmation invoices them all', async () => {
    const link = await newQrLink(account);
    const second = await newQrLink(account);
    const dollars = await newQrLink(account, { currency: 'USD', exchange_rate: 17.5 });
    const codeOf = async (qrId: string) => (await call('GET', `/v1/qrs/${qrId}`, { headers: { 'X-API-Key': account.apiKey } })).body.short_code as string;
    await page.goto(pageUrl(link));
    await page.waitForLoadState('networkidle');

    // A ticket in another currency is refused with the reason, and the list stays as it was.
    await page.fill('#more-ticket', await codeOf(dollars.qrId));
    await page.click('#add-ticket');
    await page.waitForSelector('#ticket-error:not([hidden])');
    expect(await page.locator('#ticket-error').innerText()).to.contain('otra moneda');
    expect(await page.locator('#ticket-list').isHidden()).to.equal(true);

    await page.fill('#more-ticket', (await codeOf(second.qrId)).toLowerCase());
    await page.click('#add-ticket');
    await page.waitForSelector('#ticket-list:not([hidden])');
    expect(await page.locator('#ticket-list .ticket').count()).to.equal(2);
    expect(await page.locator('#combined-totals').innerText()).to.contain('$604.64 MXN');
    expect(await page.locator('#ticket-error').isHidden()).to.equal(true);
    await screenshot(page, '08-two-tickets');

    await fill(page);
    await page.click('#continue');
    await page.waitForSelector('#review-step:not([hidden])');
    expect(await page.locator('#review-tickets .ticket').count()).to.equal(2);
    expect(await page.locator('#review-totals').innerText()).to.contain('$604.64 MXN');
    await page.click('#confirm');
    await page.waitForSelector('#result-step:not([hidden])', { timeout: 60_000 });
    const uuid = (await page.locator('#result-uuid').innerText()).trim();
    const views = await Promise.all([link, second].map(async (l) => (await call('GET', `/v1/qrs/${l.qrId}`, { headers: { 'X-API-Key': account.apiKey } })).body));
    expect(views.map((v) => [v.status, v.invoice?.uuid])).to.deep.equal([
      ['INVOICED', uuid],
      ['INVOICED', uuid],
    ]);
    expect(views[0].invoice.total).to.equal(604.64);
  });

  it("checks the RFC as typed and shows the API's refusals next to their field, keeping the data", async () => {
    const link = await newQrLink(account);
    await page.goto(pageUrl(link));
    await page.fill('#rfc', 'URE180429TM5');
    expect(await page.locator('#err-rfc').innerText()).to.contain('dígito verificador');
    await fill(page, { rfc: 'URE180429TM6', name: 'UNIVERSIDAD ROBOTICA ESPAÑOLA SA DE CV' });
    await page.click('#continue');
    await page.waitForSelector('#err-name:not([hidden])');
    expect(await page.locator('#err-name').innerText()).to.contain('SA DE CV');
    expect(await page.getAttribute('#name', 'aria-invalid')).to.equal('true');
    expect(await page.inputValue('#email')).to.equal(BUYER.email);
    expect(await page.inputValue('#tax_regime')).to.equal('601');
    await screenshot(page, '05-field-error');
  });

  it("brings the buyer back to the form with the PAC's refusal at the field and their data kept", async () => {
    const link = await newQrLink(account);
    await page.goto(pageUrl(link));
    await fill(page, { name: 'UNIVERSIDAD ROBOTICA' });
    await page.click('#continue');
    await page.waitForSelector('#review-step:not([hidden])');
    await page.click('#confirm');
    await page.waitForSelector('#err-name:not([hidden])', { timeout: 60_000 });
    expect(await page.locator('#err-name').innerText()).to.contain('no coincide');
    expect(await page.locator('#form-error').innerText()).to.contain('SAT');
    expect(await page.inputValue('#name')).to.equal('UNIVERSIDAD ROBOTICA');
    await screenshot(page, '06-pac-refusal');

    // Corrected, the same QR is invoiced.
    await page.fill('#name', BUYER.name);
    await page.click('#continue');
    await page.waitForSelector('#review-step:not([hidden])');
    await page.click('#confirm');
    await page.waitForSelector('#result-step:not([hidden])', { timeout: 60_000 });
  });

  it('shows its own page for an expired QR, a bad link and a store that cannot invoice, with the support contact', async () => {
    const expired = await newQrLink(account);
    await harness().deps.db('qr_transactions').where({ id: expired.qrId }).update({ status: 'EXPIRED' });
    const res = await page.goto(pageUrl(expired));
    expect(res?.status()).to.equal(410);
    expect(await page.locator('h1').innerText()).to.contain('venció');
    expect(await page.locator('.support').innerText()).to.contain('ayuda@gasolinera.example');
    await screenshot(page, '07-expired');

    const bad = await page.goto(`${harness().baseUrl}/q?${linkQuery({ ...expired, m: `${expired.m.startsWith('A') ? 'B' : 'A'}${expired.m.slice(1)}` })}`);
    expect(bad?.status()).to.equal(400);
    expect(await page.locator('h1').innerText()).to.contain('no es válido');
    await screenshot(page, '08-bad-link');

    const inactive = await harness().bootstrap();
    const link = await newQrLink(inactive);
    await harness().deps.db('merchants').where({ id: inactive.merchantId }).update({ status: 'INACTIVE' });
    const closed = await page.goto(pageUrl(link));
    expect(closed?.status()).to.equal(422);
    expect(await page.locator('h1').innerText()).to.contain('no puede facturar');
    await screenshot(page, '09-store-inactive');
  });

  it('fills the form from the tax-status certificate: its PDF uploaded, or its QR photographed with the camera', async function () {
    this.timeout(180_000);
    const link = await newQrLink(account);
    await page.goto(pageUrl(link));
    const regimes = () => page.locator('#tax_regime option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value).filter(Boolean));

    await page.setInputFiles('#csf-file', { name: 'constancia.pdf', mimeType: 'application/pdf', buffer: await csfPdf(XOCHILT) });
    await page.waitForFunction(() => /^Listo/.test(document.getElementById('csf-note')?.textContent ?? ''), undefined, { timeout: 60_000 });
    expect(await page.inputValue('#rfc')).to.equal(XOCHILT.rfc);
    expect(await page.inputValue('#name')).to.equal(XOCHILT.name);
    expect(await page.inputValue('#postal_code')).to.equal(XOCHILT.zip);
    // Only the regimes SAT lists for this RFC.
    expect(await regimes()).to.deep.equal(['612', '626']);
    await screenshot(page, '11-csf-prefilled');

    // The camera input gives a photo of the QR; the form follows the new RFC.
    await page.setInputFiles('#csf-camera', { name: 'foto.jpg', mimeType: 'image/jpeg', buffer: await csfPhoto(KEMPER) });
    await page.waitForFunction((rfc) => (document.getElementById('rfc') as HTMLInputElement | null)?.value === rfc, KEMPER.rfc, { timeout: 60_000 });
    expect(await page.inputValue('#name')).to.equal(KEMPER.name);
    expect(await regimes()).to.deep.equal(['601']);

    // Anything else gets a clear message, and what was filled stays.
    await page.setInputFiles('#csf-file', { name: 'carta.pdf', mimeType: 'application/pdf', buffer: await otherPdf() });
    await page.waitForFunction(() => /No encontramos/.test(document.getElementById('csf-note')?.textContent ?? ''), undefined, { timeout: 60_000 });
    expect(await page.inputValue('#name')).to.equal(KEMPER.name);
    await screenshot(page, '12-csf-not-a-csf');
  });

  it('finds the sale from the short code typed at /q', async () => {
    const created = await postQr(account, qrBody(account.storeUid));
    expect(created.status).to.equal(201);
    const code = created.body.short_code as string;
    await page.goto(`${harness().baseUrl}/q`);
    await screenshot(page, '10-code-entry');
    await page.fill('#code', code.toLowerCase().replace('-', ' '));
    await Promise.all([page.waitForURL(/\/q\?v=/), page.click('.code-form button')]);
    expect(await page.locator('.sale').innerText()).to.contain('Gasolina regular');

    await page.goto(`${harness().baseUrl}/q`);
    await page.fill('#code', 'ZZZZZ-ZZZZZ');
    await Promise.all([page.waitForURL(/code=/), page.click('.code-form button')]);
    expect(await page.locator('h1').innerText()).to.contain('No encontramos ese código');
    await screenshot(page, '13-code-not-found');
  });
});
