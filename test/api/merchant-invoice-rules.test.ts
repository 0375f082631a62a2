import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { confirmReviewed, preview, linkQuery, newQrLink } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';

/** A buyer without an RFC: público en general, with the store's zip. */
const NO_RFC = { rfc: 'XAXX010101000', name: 'JUAN PEREZ', tax_regime: '616', postal_code: '42501', cfdi_use: 'S01' };

describe("the merchant's invoicing rules (issues #17, #18)", function () {
  this.timeout(60_000);
  let account: BootstrapResult;
  beforeEach(async () => {
    account = await harness().bootstrap();
  });
  const setRules = (invoiceRules: Record<string, unknown>) =>
    call('PUT', `/v1/qrs/merchants/${account.merchantId}`, {
      headers: { Authorization: `Bearer ${account.accessToken}` },
      body: { invoiceRules },
    });
  const fields = (res: { body: { error: { details: { field: string; code: string }[] } } }) => res.body.error.details.map((d) => `${d.field}:${d.code}`);

  it('by default a buyer cannot self-invoice as público en general: the sale goes to the global invoice, the QR stays usable', async () => {
    const merchant = await call('GET', `/v1/qrs/merchants/${account.merchantId}`, { headers: { Authorization: `Bearer ${account.accessToken}` } });
    expect(merchant.body.invoiceRules).to.deep.equal({ allowGenericRfc: false, allowedCfdiUses: null, resicoWithholding: true });
    const link = await newQrLink(account);
    const res = await confirmReviewed(link, NO_RFC);
    expectError(res, 422, 'customer_invalid');
    expect(fields(res)).to.deep.equal(['customer.rfc:generic_rfc_not_offered']);
    expect(res.body.error.details[0].message).to.contain('global invoice');
    expect(await harness().deps.db('invoices').where({ transaction_id: link.qrId })).to.have.length(0);
    const page = await call('GET', `/q?${linkQuery(link)}`);
    expect(page.body.toString()).to.contain('"allowGenericRfc":false');
  });

  it('a merchant may allow it', async () => {
    expect((await setRules({ allowGenericRfc: true })).body.invoiceRules).to.include({ allowGenericRfc: true, resicoWithholding: true });
    const link = await newQrLink(account);
    expect((await confirmReviewed(link, NO_RFC)).status).to.equal(202);
  });

  it('CP01 (payment receipts) and CN01 (payroll) are neither offered nor accepted for a sale', async () => {
    const link = await newQrLink(account);
    expect(fields(await confirmReviewed(link, { cfdi_use: 'CP01' }))).to.deep.equal(['customer.cfdi_use:cfdi_use_not_for_sales']);
    const page = await call('GET', `/q?${linkQuery(link)}`);
    expect(page.status).to.equal(200);
    const html = page.body.toString();
    expect(html).to.contain('"G03"');
    expect(html).to.not.contain('"CP01"');
    expect(html).to.not.contain('"CN01"');
  });

  it('the merchant chooses the CFDI uses its buyers may pick: the page offers only those, confirm refuses others', async () => {
    const bad = await setRules({ allowedCfdiUses: ['G03', 'CP01', 'Z99'] });
    expectError(bad, 400, 'validation_failed');
    expect(fields(bad)).to.deep.equal(['invoiceRules.allowedCfdiUses[1]:cfdi_use_not_for_sales', 'invoiceRules.allowedCfdiUses[2]:catalog_key_unknown']);
    expect((await setRules({ allowedCfdiUses: ['G03'] })).body.invoiceRules.allowedCfdiUses).to.deep.equal(['G03']);
    const link = await newQrLink(account);
    expect(fields(await confirmReviewed(link, { cfdi_use: 'G01' }))).to.deep.equal(['customer.cfdi_use:cfdi_use_not_offered']);
    const page = await call('GET', `/q?${linkQuery(link)}`);
    expect(page.body.toString()).to.contain('"G03"');
    expect(page.body.toString()).to.not.contain('"G01"');
    expect((await confirmReviewed(link, { cfdi_use: 'G03' })).status).to.equal(202);
  });

  it('the RESICO withholding applies unless the merchant turns it off', async () => {
    await harness().deps.db('issuers').where({ id: account.issuerId }).update({ tax_regime_code: '626' });
    const link = await newQrLink(account);
    expect((await preview(link, {})).body.totals.withheld_taxes).to.equal(3.15);
    await setRules({ resicoWithholding: false });
    expect((await preview(link, {})).body.totals.withheld_taxes).to.equal(0);
  });
});
