import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { parseXml } from '../../shared/domain/cfdi/parse-xml.js';
import { attribute, child } from '../../shared/domain/cfdi/xml-element.js';
import { BUYER, confirmReviewed, linkQuery, newQrLink, queueEvents, stamped } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';
import { postQr, qrBody } from '../helpers/qr-body.js';
import { sampleSale } from '../fixtures/sample-sale.js';

/** SAT's own stamped sample (../shared/sat/samples) is addressed to this RFC, whose last character is not its computed check digit. */
const MUNICIPIO = { rfc: 'MCI7306249Y1', name: 'MUNICIPIO DE CUAUTITLAN IZCALLI', tax_regime: '603', postal_code: '54700', cfdi_use: 'G03' };

/** 1.333 L of fuel at 14.995: every amount at the contract's six decimals. */
const FUEL = {
  amount: 23.186469,
  subtotal: 19.988335,
  operation_data: [
    {
      sku: 'MAGNA',
      description: 'Gasolina regular',
      quantity: 1.333,
      unit_price: 14.995,
      amount: 19.988335,
      sat_unit_key: 'LTR',
      sat_product_service_key: '15101514',
      sat_tax_object_key: '02',
      taxes: [{ type: 'Traslado' as const, tax: '002', factor: 'Tasa' as const, rate: '0.160000', taxable_base: 19.988335, amount: 3.198134 }],
    },
  ],
};

describe('what SAT accepts is accepted (issue #17)', function () {
  this.timeout(90_000);
  let account: BootstrapResult;
  let events: QueueEvents;
  before(async () => {
    account = await harness().bootstrap();
    events = await queueEvents('stamp');
  });
  after(() => events.close());

  const detail = async (qrId: string) => (await call('GET', `/v1/qrs/${qrId}`, { headers: { 'X-API-Key': account.apiKey } })).body;
  const stampedXml = async (qrId: string) => {
    const row = await harness().deps.db('invoices').where({ transaction_id: qrId, status: 'ACTIVE' }).first();
    return parseXml((await harness().deps.files.get(row.xml_file_key))!.data.toString('utf8'));
  };

  it("a sale with six decimals: 201, the POS's amounts kept, what the invoice will say shown, and stamped with SAT's rounding", async () => {
    const link = await newQrLink(account, FUEL);
    const qr = await detail(link.qrId);
    expect(qr).to.include({ amount: 23.186469, subtotal: 19.988335 });
    expect(qr.operation_data[0]).to.include({ quantity: 1.333, unit_price: 14.995, amount: 19.988335 });
    expect(qr.invoice_totals).to.deep.equal({ subtotal: 19.99, discount: 0, transferred_taxes: 3.2, withheld_taxes: 0, total: 23.19 });
    const row = await harness().deps.db('qr_transactions').where({ id: link.qrId }).first();
    expect(row).to.include({ amount: '23.186469', subtotal: '19.988335' });

    const review = await call('GET', `/v1/public/qrs/resolve?${linkQuery(link)}`);
    expect(review.body.totals).to.deep.equal({ subtotal: 19.99, discount: 0, transferred_taxes: 3.2, withheld_taxes: 0, total: 23.19 });
    expect((await confirmReviewed(link)).status).to.equal(202);
    expect(await stamped(events, link.qrId)).to.include({ outcome: 'stamped' });
    const doc = await stampedXml(link.qrId);
    expect([attribute(doc, 'SubTotal'), attribute(doc, 'Total')]).to.deep.equal(['19.99', '23.19']);
    const concept = child(child(doc, 'cfdi:Conceptos')!, 'cfdi:Concepto')!;
    expect([attribute(concept, 'Cantidad'), attribute(concept, 'ValorUnitario'), attribute(concept, 'Importe')]).to.deep.equal(['1.333000', '14.995000', '19.988335']);
  });

  it('refuses only what no rounding reconciles, naming the field and the value the invoice would carry', async () => {
    const res = await postQr(account, qrBody(account.storeUid, { ...FUEL, amount: 23.18 }));
    expect(res.status).to.equal(422);
    expect(res.body.error.details).to.deep.include({ field: 'amount', code: 'total_mismatch', expected: '23.19', message: res.body.error.details[0].message });
  });

  it('a buyer whose RFC does not match its check digit is warned, not refused, and gets the CFDI', async () => {
    const link = await newQrLink(account);
    const preview = await call('POST', '/v1/public/qrs/preview', { body: { v: link.v, t: link.t, m: link.m, customer: { ...BUYER, ...MUNICIPIO } } });
    expect(preview.status).to.equal(200);
    expect(preview.body.warnings.map((w: { field: string; code: string }) => `${w.field}:${w.code}`)).to.deep.equal(['customer.rfc:rfc_check_digit']);
    expect((await confirmReviewed(link, MUNICIPIO)).status).to.equal(202);
    expect(await stamped(events, link.qrId)).to.include({ outcome: 'stamped' });
    expect(attribute(child(await stampedXml(link.qrId), 'cfdi:Receptor')!, 'Rfc')).to.equal('MCI7306249Y1');
  });
});

describe("nothing SAT's schema refuses is accepted at the door (issue #17)", () => {
  let account: BootstrapResult;
  before(async () => {
    account = await harness().bootstrap();
  });
  const post = (overrides: Record<string, unknown>) => postQr(account, { ...qrBody(account.storeUid), ...overrides });
  const fields = (res: { body: { error: { details: { field: string; code: string }[] } } }) => res.body.error.details.map((d) => `${d.field}:${d.code}`);

  it('a concept description or sku with "|" (CFDI40101 at the PAC) or nothing but spaces is a field-level 400, and nothing is written', async () => {
    const concepts = sampleSale('s', new Date()).operation_data;
    const piped = await post({
      operation_data: [
        { ...concepts[0]!, description: 'Agua | 1 L' },
        { ...concepts[1]!, sku: 'A|1' },
        { ...concepts[2]!, description: '  \t ' },
      ],
    });
    expect(piped.status).to.equal(400);
    expect(fields(piped)).to.deep.equal([
      'operation_data[0].description:invalid_for_cfdi',
      'operation_data[1].sku:invalid_for_cfdi',
      'operation_data[2].description:invalid_for_cfdi',
    ]);
    expect(piped.body.error.details[0].message).to.contain('Comprobante/Conceptos/Concepto@Descripcion');
    expect(await harness().deps.db('qr_transactions').where({ merchant_id: account.merchantId }).count({ n: '*' }).first()).to.deep.equal({ n: '0' });
    // What SAT accepts passes: 1,000 characters once spaces collapse, accents, symbols other than "|".
    const long = `${'Á'.repeat(998)}   x`;
    expect((await post({ operation_data: [{ ...concepts[2]!, description: long }], subtotal: 10, amount: 10 })).status).to.equal(201);
    expect(fields(await post({ operation_data: [{ ...concepts[2]!, description: `${long}y` }], subtotal: 10, amount: 10 }))).to.deep.equal([
      'operation_data[0].description:invalid_for_cfdi',
    ]);
  });

  it('the buyer\'s name takes SAT\'s 300 characters and no "|"', async () => {
    const link = await newQrLink(account);
    const preview = (name: string) => call('POST', '/v1/public/qrs/preview', { body: { v: link.v, t: link.t, m: link.m, customer: { ...BUYER, name } } });
    expect((await preview('A'.repeat(300))).status).to.equal(200);
    expect(fields(await preview('ACME | HOLDING'))).to.deep.equal(['customer.name:invalid_for_cfdi']);
    expect(fields(await preview('A'.repeat(301)))).to.deep.equal(['customer.name:invalid_for_cfdi']);
  });

  it("a product's sku and description are checked as the concept they become", async () => {
    const res = await call('POST', `/v1/qrs/merchants/${account.merchantId}/products`, {
      headers: { Authorization: `Bearer ${account.accessToken}` },
      body: [{ sku: 'P|1', description: 'Agua', unitPrice: 10, satUnitKey: 'H87', satProductServiceKey: '50202301', satTaxObjectKey: '01' }],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(fields(res)).to.include('[0].sku:invalid_for_cfdi');
  });
});
