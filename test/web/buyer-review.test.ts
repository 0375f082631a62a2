import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { parseXml } from '../../shared/domain/cfdi/parse-xml.js';
import { attribute, child, children } from '../../shared/domain/cfdi/xml-element.js';
import type { QrCreateRequest } from '../../shared/qr/qr-request.js';
import { BUYER, linkQuery, newQrLink, type QrLink } from '../helpers/buyer.js';
import { openPhone, screenshot } from '../helpers/browser.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';

/** A cash sale of one concept: 10 × 1.00 + 16 % IVA = $11.60 (the base sale of issue #29). */
const WATER: Partial<QrCreateRequest> = {
  amount: 11.6,
  subtotal: 10,
  sat_payment_form: '01',
  operation_data: [
    {
      description: 'Agua 1 L',
      amount: 10,
      quantity: 10,
      unit_price: 1,
      sat_unit_key: 'H87',
      sat_product_service_key: '50202301',
      sat_tax_object_key: '02',
      taxes: [{ type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000', taxable_base: 10, amount: 1.6 }],
    },
  ],
};

/** A second cash ticket: 7.00 + 16 % IVA = $8.12. */
const SNACK: Partial<QrCreateRequest> = {
  amount: 8.12,
  subtotal: 7,
  sat_payment_form: '01',
  operation_data: [
    {
      description: 'Galletas',
      amount: 7,
      quantity: 1,
      unit_price: 7,
      sat_unit_key: 'H87',
      sat_product_service_key: '50181900',
      sat_tax_object_key: '02',
      taxes: [{ type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000', taxable_base: 7, amount: 1.12 }],
    },
  ],
};

/** Issue #29: the review shows exactly what "Emitir mi factura" stamps, whatever the buyer does meanwhile. */
describe('buyer page: what the review shows is what is stamped', function () {
  this.timeout(150_000);
  let account: BootstrapResult;
  let phone: Awaited<ReturnType<typeof openPhone>>;
  let page: Page;

  before(async () => {
    account = await harness().bootstrap();
    phone = await openPhone();
  });
  after(() => phone?.close());
  beforeEach(async () => {
    page = await phone.context.newPage();
  });
  afterEach(() => page?.close());

  const db = () => harness().deps.db;
  const pageUrl = (link: QrLink) => `${harness().baseUrl}/q?${linkQuery(link)}`;
  const codeOf = async (qrId: string) => (await call('GET', `/v1/qrs/${qrId}`, { headers: { 'X-API-Key': account.apiKey } })).body.short_code as string;
  /** The total shown at review, as the number it formats ("$19.72 MXN" → 19.72). */
  const reviewTotal = async () => {
    const text = await page.locator('#review-totals').innerText();
    const match = /Total\s*\$([\d,.]+)/.exec(text);
    return Number(match![1]!.replace(/,/g, ''));
  };
  const stampedCfdi = async (qrId: string) => {
    const invoice = await db()('invoices').where({ transaction_id: qrId, status: 'ACTIVE' }).first('xml_file_key');
    const xml = parseXml((await harness().deps.files.get(invoice.xml_file_key as string))!.data.toString('utf8'));
    return { total: Number(attribute(xml, 'Total')), concepts: children(child(xml, 'cfdi:Conceptos')!, 'cfdi:Concepto').map((c) => attribute(c, 'Descripcion')) };
  };

  async function fill(): Promise<void> {
    await page.fill('#rfc', BUYER.rfc);
    await page.fill('#name', BUYER.name);
    await page.selectOption('#tax_regime', BUYER.tax_regime);
    await page.fill('#postal_code', BUYER.postal_code);
    await page.selectOption('#cfdi_use', BUYER.cfdi_use);
    await page.fill('#email', BUYER.email);
  }
  async function toReview(): Promise<void> {
    await page.click('#continue');
    await page.waitForSelector('#review-step:not([hidden])');
  }
  async function addTicket(code: string): Promise<void> {
    const before = await page.locator('#ticket-list .ticket').count();
    await page.fill('#more-ticket', code);
    await page.click('#add-ticket');
    await page.waitForFunction((n) => document.querySelectorAll('#ticket-list .ticket').length > n, before);
  }
  async function confirmAndWait(): Promise<void> {
    await page.click('#confirm');
    await page.waitForSelector('#result-step:not([hidden])', { timeout: 60_000 });
  }

  it('a ticket added while the review is shown takes the buyer back to the form; the new review shows both tickets, and that total is stamped', async () => {
    const link = await newQrLink(account, WATER);
    const snack = await newQrLink(account, SNACK);
    await page.goto(pageUrl(link));
    await fill();
    await toReview();
    expect(await reviewTotal()).to.equal(11.6);
    expect(await page.locator('#review-tickets').innerText()).to.contain('Agua 1 L');

    // The "more tickets" box is still there above the review: using it leaves the review.
    await addTicket(await codeOf(snack.qrId));
    await page.waitForSelector('#review-step', { state: 'hidden' });
    expect(await page.locator('#fill-step').isVisible()).to.equal(true);
    expect(await page.locator('#fill-note').innerText()).to.contain('Continuar');
    await screenshot(page, 'r1-ticket-added-during-review');

    await toReview();
    expect(await reviewTotal()).to.equal(19.72);
    // Every ticket with its concepts, not only the first one's.
    expect(await page.locator('#review-tickets .ticket').count()).to.equal(2);
    const reviewed = await page.locator('#review-tickets').innerText();
    expect(reviewed).to.contain('Agua 1 L').and.contain('Galletas').and.contain('$8.12 MXN');
    await screenshot(page, 'r2-review-two-tickets');
    const shown = await reviewTotal();
    await confirmAndWait();
    expect(await stampedCfdi(link.qrId)).to.deep.equal({ total: shown, concepts: ['Agua 1 L', 'Galletas'] });
  });

  it('a ticket removed while the review is shown takes the buyer back to the form; the stamped total is the one reviewed after', async () => {
    const link = await newQrLink(account, WATER);
    const snack = await newQrLink(account, SNACK);
    await page.goto(pageUrl(link));
    await addTicket(await codeOf(snack.qrId));
    await fill();
    await toReview();
    expect(await reviewTotal()).to.equal(19.72);

    await page.click('#ticket-list .remove');
    await page.waitForSelector('#review-step', { state: 'hidden' });
    expect(await page.locator('#fill-note').isVisible()).to.equal(true);
    await toReview();
    expect(await page.locator('#review-tickets .ticket').count()).to.equal(1);
    expect(await page.locator('#review-tickets').innerText()).to.not.contain('Galletas');
    const shown = await reviewTotal();
    expect(shown).to.equal(11.6);
    await confirmAndWait();
    expect(await stampedCfdi(link.qrId)).to.deep.equal({ total: shown, concepts: ['Agua 1 L'] });
    expect((await call('GET', `/v1/qrs/${snack.qrId}`, { headers: { 'X-API-Key': account.apiKey } })).body.status).to.not.equal('INVOICED');
  });

  it('when what would be stamped changed since the review (409 review_outdated), the review is drawn again from the answer before anything is stamped', async () => {
    const link = await newQrLink(account, WATER);
    await page.goto(pageUrl(link));
    await fill();
    await toReview();
    // Behind the page's back, the sale's concept changes (as another client's list would).
    await db()('qr_concepts').where({ transaction_id: link.qrId }).update({ description: 'Agua purificada 1 L' });
    await page.click('#confirm');
    await page.waitForSelector('#review-note:not([hidden])');
    expect(await page.locator('#review-note').innerText()).to.contain('cambió');
    expect(await page.locator('#review-tickets').innerText()).to.contain('Agua purificada 1 L');
    expect(await db()('invoices').where({ transaction_id: link.qrId })).to.have.length(0);
    const shown = await reviewTotal();
    await confirmAndWait();
    expect(await stampedCfdi(link.qrId)).to.deep.equal({ total: shown, concepts: ['Agua purificada 1 L'] });
  });

  it('once the invoice is issued, nothing offers to add tickets or shows the invoicing deadline', async () => {
    const link = await newQrLink(account, WATER);
    await page.goto(pageUrl(link));
    expect(await page.locator('#more-tickets').isVisible()).to.equal(true);
    expect(await page.locator('.expiry').isVisible()).to.equal(true);
    await fill();
    await toReview();
    await confirmAndWait();
    expect(await page.locator('#more-tickets').isVisible()).to.equal(false);
    expect(await page.locator('#add-ticket').isVisible()).to.equal(false);
    expect(await page.locator('.expiry').isVisible()).to.equal(false);
    const visible = await page.locator('body').innerText();
    expect(visible).to.not.match(/Puedes facturar hasta|Agregar otro ticket|Más tickets/);
    await screenshot(page, 'r3-issued');
  });

  it('shows every refusal in Spanish: a sale invoiced meanwhile (409) is not "This sale was already invoiced."', async () => {
    const link = await newQrLink(account, WATER);
    await page.goto(pageUrl(link));
    await fill();
    await toReview();
    await db()('qr_transactions').where({ id: link.qrId }).update({ status: 'INVOICED' });
    await page.click('#confirm');
    await page.waitForSelector('#form-error:not([hidden])');
    const message = await page.locator('#form-error').innerText();
    expect(message).to.contain('ya está facturada');
    expect(message).to.not.contain('already');
    // Adding a ticket to it is refused in Spanish too.
    await page.fill('#more-ticket', 'ZZZZZ-ZZZZZ');
    await page.click('#add-ticket');
    await page.waitForSelector('#ticket-error:not([hidden])');
    expect(await page.locator('#ticket-error').innerText()).to.contain('ya está facturada');
    // No path of the script puts the API's English message on the page.
    const script = await (await fetch(`${harness().baseUrl}/q/assets/buyer-page.js`)).text();
    expect(script).to.not.match(/\b(error|d|detail)\.message\b/);
  });
});
