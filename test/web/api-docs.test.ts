import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { openDesktop, screenshot } from '../helpers/browser.js';
import { harness } from '../helpers/harness.js';

const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'api-docs');

/** GET /docs in a real browser (Debian's chromium): Redoc renders the OpenAPI document under the page's CSP. */
describe('API reference (/docs) in a browser', function () {
  this.timeout(120_000);
  let browser: Awaited<ReturnType<typeof openDesktop>>;
  let page: Page;
  const problems: string[] = [];
  const requests: string[] = [];

  before(async () => {
    browser = await openDesktop();
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
  after(() => browser?.close());

  it('renders POST /v1/qrs with its request fields, types, required marks, enums, example and auth, with no CSP violation nor other origin', async () => {
    const res = await page.goto(`${harness().baseUrl}/docs`);
    expect(res?.status()).to.equal(200);
    expect(res?.headers()['content-security-policy']).to.match(/script-src 'nonce-[^']+'/);
    const operation = page.locator('[id="tag/QRs/operation/createQr"]');
    await operation.waitFor({ timeout: 60_000 });
    await screenshot(page, 'reference', ARTIFACTS, false);

    const text = await operation.innerText();
    expect(text).to.contain('Generate a self-invoicing QR for a sale').and.contain('AUTHORIZATIONS:').and.contain('ApiKey');
    // Each field with its required mark and type: `store_uid` / required / string [ 1 .. 100 ] characters.
    expect(text).to.match(/store_uid\s+required\s+string \[ 1 \.\. 100 \] characters/);
    expect(text).to.match(/operation_data\s+required\s+Array of objects \[ 1 \.\. 100 \] items/);
    expect(text).to.match(/operation\s+required\s+string\s+Enum: "INVOICE" "PAYMENT" "REFUND"/);
    expect(text).to.match(/idempotency-key\s+required\s+string <uuid>/);
    // The request sample is the document's example, ready to send.
    expect(text)
      .to.match(/"sale_id":\s*"A-10231"/)
      .and.match(/"sat_product_service_key":\s*"50202301"/);
    // The answer's fields too, and the auth schemes of the whole API.
    expect(text).to.contain('201').and.contain('qr_content');
    expect(await page.locator('[id="section/Authentication"]').innerText())
      .to.contain('X-API-Key')
      .and.contain('HTTP Authorization Scheme: bearer');

    expect(problems).to.deep.equal([]);
    const origin = new URL(harness().baseUrl).origin;
    expect(requests.filter((u) => new URL(u).origin !== origin && !/^(blob|data):/.test(u))).to.deep.equal([]);
  });

  it("shows an upload as its form: each part with its type and description, and a curl sample of the reference's example", async () => {
    await page.goto(`${harness().baseUrl}/docs#tag/Merchants/operation/saveMerchantCsd`);
    const operation = page.locator('[id="tag/Merchants/operation/saveMerchantCsd"]');
    await operation.waitFor({ timeout: 60_000 });
    const text = await operation.innerText();
    expect(text).to.match(/REQUEST BODY SCHEMA:\s+multipart\/form-data/);
    expect(text).to.match(/csdDataRequest\.cerFile\s+required\s+string <binary>\s+The certificate \(\.cer, DER\)/);
    expect(text).to.match(/csdDataRequest\.password\s+required\s+string <password>/);
    await operation.getByRole('tab', { name: 'curl' }).click();
    expect(await operation.innerText()).to.contain("-F 'csdDataRequest.keyFile=@EKU9003173C9.key'");
    await screenshot(page, 'csd-upload', ARTIFACTS, false);
    expect(problems).to.deep.equal([]);
  });

  it('serves the bundle from the npm package, gzipped, cacheable for good under its content hash', async () => {
    const html = await (await fetch(`${harness().baseUrl}/docs`)).text();
    const src = /<script nonce="[^"]+" src="([^"]+)"/.exec(html)?.[1];
    expect(src).to.match(/^\/docs\/assets\/redoc\.standalone\.js\?h=/);
    const res = await fetch(`${harness().baseUrl}${src!}`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(res.headers.get('content-encoding')).to.equal('gzip');
    expect((await res.text()).length).to.be.above(500_000);
    expect((await fetch(`${harness().baseUrl}/docs/assets/other.js`)).status).to.equal(404);
  });
});
