import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';
import { postQr, qrBody } from '../helpers/qr-body.js';

const IVA16 = [{ type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000' }];
const MAGNA = { sku: 'MAGNA', description: 'Gasolina regular', unitPrice: 21.5, satUnitKey: 'LTR', satProductServiceKey: '15101514', satTaxObjectKey: '02', taxes: IVA16 };
const AGUA = { sku: 'AGUA-1L', description: 'Agua embotellada 1 L', unitPrice: 18.5, satUnitKey: 'H87', satProductServiceKey: '50202301', satTaxObjectKey: '02', taxes: IVA16 };

describe('merchant products (/v1/qrs/merchants/{merchantId}/products)', () => {
  let account: BootstrapResult;
  let path: string;
  const as = (a: BootstrapResult) => ({ Authorization: `Bearer ${a.accessToken}` });
  before(async () => {
    account = await harness().bootstrap();
    path = `/v1/qrs/merchants/${account.merchantId}/products`;
  });

  it('creates a list of products (201) with SAT descriptions', async () => {
    const res = await call('POST', path, { headers: as(account), body: [MAGNA, AGUA] });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.have.length(2);
    expect(res.body[0]).to.deep.include({
      merchantId: account.merchantId,
      sku: 'MAGNA',
      unitPrice: 21.5,
      satUnitKey: 'LTR',
      satUnitDesc: 'Litro',
      satProductServiceDesc: 'Gasolina regular menor a 91 octanos',
      satTaxObjectDesc: 'Sí objeto de impuesto.',
      taxes: IVA16,
    });
    const one = await call('GET', `${path}/${res.body[1].productId}`, { headers: as(account) });
    expect(one.body).to.deep.equal(res.body[1]);
  });

  it('is all or nothing: a known sku is 409, a bad key 400, and nothing is created', async () => {
    const count = async () => (await call('GET', path, { headers: as(account) })).body.totalElements;
    const before = await count();
    const dup = await call('POST', path, { headers: as(account), body: [{ ...MAGNA, sku: 'NUEVO' }, MAGNA] });
    expectError(dup, 409, 'product_sku_exists');
    expect(dup.body.error.details).to.deep.equal([{ field: '[1].sku', code: 'duplicate', message: 'sku "MAGNA" is already in the catalog.' }]);
    const bad = await call('POST', path, {
      headers: as(account),
      body: [
        { ...MAGNA, sku: 'X1', satUnitKey: 'ZZZ', taxes: [{ type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.150000' }] },
        { ...AGUA, sku: 'X1' },
      ],
    });
    expectError(bad, 400, 'validation_failed');
    expect(bad.body.error.details.map((d: { field: string; code: string }) => `${d.field}:${d.code}`)).to.have.members([
      '[0].satUnitKey:catalog_key_unknown',
      '[0].taxes[0].rate:rate_not_allowed',
      '[1].sku:duplicate',
    ]);
    expect(await count()).to.equal(before);
  });

  it('lists with search and the page envelope; updates one (200)', async () => {
    const page = await call('GET', `${path}?search=agua&size=5`, { headers: as(account) });
    expect(page.body).to.include({ totalElements: 1, number: 0, size: 5 });
    const id = page.body.content[0].productId;
    const put = await call('PUT', `${path}/${id}`, { headers: as(account), body: { unitPrice: 19, satTaxObjectKey: '01', taxes: [] } });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    expect(put.body).to.deep.include({ unitPrice: 19, satTaxObjectKey: '01', taxes: [] });
    const bad = await call('PUT', `${path}/${id}`, { headers: as(account), body: { satTaxObjectKey: '02' } });
    expect(bad.body.error.details).to.deep.include({ field: 'taxes', code: 'taxes_required', message: 'Tax object 02 requires at least one tax.' });
    expectError(await call('PUT', `${path}/${id}`, { headers: as(account), body: { sku: 'MAGNA' } }), 409, 'product_sku_exists');
  });

  it('lets a QR concept name a product by sku and take its SAT keys', async () => {
    const body = qrBody(account.storeUid);
    const concept = body.operation_data[0] as unknown as Record<string, unknown>;
    delete concept.sat_unit_key;
    delete concept.sat_product_service_key;
    delete concept.sat_tax_object_key;
    const res = await postQr(account, body);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.operation_data[0]).to.include({ sku: 'MAGNA', sat_unit_key: 'LTR', sat_product_service_key: '15101514', sat_tax_object_key: '02', sat_unit_desc: 'Litro' });

    const unknown = qrBody(account.storeUid);
    const c = unknown.operation_data[0] as unknown as Record<string, unknown>;
    c.sku = 'NO-EXISTE';
    delete c.sat_unit_key;
    const refused = await postQr(account, unknown);
    expectError(refused, 400, 'validation_failed');
    expect(refused.body.error.details[0]).to.include({ field: 'operation_data[0].sat_unit_key', code: 'required' });
  });

  it("answers 404 for another account's merchant and product", async () => {
    const other = await harness().bootstrap();
    expectError(await call('GET', path, { headers: as(other) }), 404, 'merchant_not_found');
    expectError(await call('POST', path, { headers: as(other), body: [MAGNA] }), 404, 'merchant_not_found');
    const id = (await call('GET', path, { headers: as(account) })).body.content[0].productId;
    expectError(await call('GET', `/v1/qrs/merchants/${other.merchantId}/products/${id}`, { headers: as(other) }), 404, 'product_not_found');
  });
});
