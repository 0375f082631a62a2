import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';
import { postQr, qrBody } from '../helpers/qr-body.js';

const ADDRESS = { street: 'Av. Juárez', exteriorNumber: '100', interiorNumber: null, neighborhood: 'Centro', city: 'Pachuca', state: 'Hidalgo', zipCode: '42000' };

describe('merchants (/v1/qrs/merchants)', () => {
  let account: BootstrapResult;
  let other: BootstrapResult;
  const as = (a: BootstrapResult) => ({ Authorization: `Bearer ${a.accessToken}` });
  before(async () => {
    account = await harness().bootstrap();
    other = await harness().bootstrap();
  });
  const create = (body: unknown, a = account) => call('POST', '/v1/qrs/merchants', { headers: as(a), body });
  const valid = () => ({
    issuerId: account.issuerId,
    merchantName: 'Gasolinera Juárez',
    billingProfile: 'FUEL',
    contactEmail: 'caja@example.mx',
    contactPhoneNumber: '+52 771 123 4567',
    address: ADDRESS,
  });

  it('creates a merchant: 201 with the spec fields, ACTIVE, a store code for store_uid, no logos', async () => {
    const res = await create(valid());
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.deep.include({
      issuerId: account.issuerId,
      merchantName: 'Gasolinera Juárez',
      billingProfile: 'FUEL',
      billingProfileData: null,
      contactEmail: 'caja@example.mx',
      contactPhoneNumber: '+52 771 123 4567',
      address: ADDRESS,
      status: 'ACTIVE',
      logoAnimation: 'NONE',
      invoiceLogoUrl: null,
      appLogoUrl: null,
    });
    expect(res.body.merchantId).to.match(/^mer_/);
    expect(res.body.externalMerchantId).to.match(/^store-[0-9a-f]{10}$/);
    const { apiKey, ...merchant } = res.body;
    const got = await call('GET', `/v1/qrs/merchants/${res.body.merchantId}`, { headers: as(account) });
    expect(got.body).to.deep.equal(merchant);
    // Its first API key comes with it (no "regenerate" to create one), shown once, and it authenticates.
    expect(apiKey).to.match(/^sk_test_/);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect((await call('GET', '/v1/qrs/tra_unknown', { headers: { 'X-API-Key': apiKey } })).status).to.equal(404);
    expectError(await postQr({ ...account, apiKey, storeUid: merchant.externalMerchantId }, qrBody(merchant.externalMerchantId)), 422, 'csd_not_configured');
  });

  it('validates every field with details[] and writes nothing', async () => {
    const count = async () => Number((await harness().deps.db('merchants').where({ account_id: account.accountId }).count<{ count: string }[]>('* as count'))[0]?.count);
    const before = await count();
    const res = await create({
      ...valid(),
      merchantName: '',
      billingProfile: 'CASINO',
      contactEmail: 'x',
      contactPhoneNumber: '12',
      address: { ...ADDRESS, zipCode: '4200' },
      extra: 1,
    });
    expectError(res, 400, 'validation_failed');
    expect(res.body.error.details.map((d: { field: string; code: string }) => `${d.field}:${d.code}`)).to.include.members([
      'merchantName:invalid_length',
      'billingProfile:invalid_value',
      'contactEmail:invalid_format',
      'contactPhoneNumber:invalid_format',
      'address.zipCode:invalid_format',
      'extra:unknown_field',
    ]);
    expectError(await create({ merchantName: 'Sin emisor' }), 400, 'validation_failed');
    expectError(await create({ ...valid(), issuerId: other.issuerId }), 404, 'issuer_not_found');
    expect(await count()).to.equal(before);
  });

  it('updates partially, never the issuer', async () => {
    const id = (await create(valid())).body.merchantId;
    const res = await call('PUT', `/v1/qrs/merchants/${id}`, { headers: as(account), body: { merchantName: 'Gasolinera Juárez II' } });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.include({ merchantName: 'Gasolinera Juárez II', contactEmail: 'caja@example.mx', address: ADDRESS });
    const moved = await call('PUT', `/v1/qrs/merchants/${id}`, { headers: as(account), body: { issuerId: other.issuerId } });
    expectError(moved, 400, 'validation_failed');
    expect(moved.body.error.details[0]).to.include({ field: 'issuerId', code: 'not_updatable' });
    expectError(await call('PUT', `/v1/qrs/merchants/${id}`, { headers: as(account), body: {} }), 400, 'validation_failed');
  });

  it('lists MerchantSummary pages for an issuer, filtered by name', async () => {
    expectError(await call('GET', '/v1/qrs/merchants', { headers: as(account) }), 400, 'validation_failed');
    const page = await call('GET', `/v1/qrs/merchants?issuerId=${account.issuerId}&filter=juárez&size=1`, { headers: as(account) });
    expect(page.status).to.equal(200);
    expect(page.body).to.include({ totalElements: 2, totalPages: 2, number: 0, size: 1 });
    expect(page.body.content[0]).to.have.all.keys('merchantId', 'merchantName', 'city', 'state', 'invoiceLogoUrl', 'appLogoUrl', 'status');
    expect(page.body.content[0]).to.include({ city: 'Pachuca', state: 'Hidalgo', status: 'ACTIVE' });
    expectError(await call('GET', `/v1/qrs/merchants?issuerId=${account.issuerId}`, { headers: as(other) }), 404, 'issuer_not_found');
  });

  it('inactive: no new QRs, existing transactions stay readable; active again works', async () => {
    const qr = (await postQr(account, qrBody(account.storeUid))).body;
    const off = await call('PUT', `/v1/qrs/merchants/${account.merchantId}/status/inactive`, { headers: as(account) });
    expect(off.status).to.equal(200);
    expect(off.body.status).to.equal('INACTIVE');
    expectError(await postQr(account, qrBody(account.storeUid)), 422, 'merchant_inactive');
    expect((await call('GET', `/v1/qrs/${qr.qr_id}`, { headers: { 'X-API-Key': account.apiKey } })).status).to.equal(200);
    const on = await call('PUT', `/v1/qrs/merchants/${account.merchantId}/status/active`, { headers: as(account) });
    expect(on.body.status).to.equal('ACTIVE');
    expect((await postQr(account, qrBody(account.storeUid))).status).to.equal(201);
  });

  it('regenerates the API key: the old one fails from the next request, the new one works', async () => {
    const res = await call('PUT', `/v1/qrs/merchants/${account.merchantId}/api-key/regenerate`, { headers: as(account) });
    expect(res.status).to.equal(200);
    expect(res.body.apiKey).to.match(/^sk_test_/);
    expectError(await postQr(account, qrBody(account.storeUid)), 401, 'unauthorized');
    expect((await postQr({ ...account, apiKey: res.body.apiKey }, qrBody(account.storeUid))).status).to.equal(201);
    account = { ...account, apiKey: res.body.apiKey };
  });

  it("answers 404 on every route for another account's merchant", async () => {
    const id = account.merchantId;
    for (const [method, path, body] of [
      ['GET', `/v1/qrs/merchants/${id}`, undefined],
      ['PUT', `/v1/qrs/merchants/${id}`, { merchantName: 'x' }],
      ['PUT', `/v1/qrs/merchants/${id}/status/inactive`, undefined],
      ['PUT', `/v1/qrs/merchants/${id}/status/active`, undefined],
      ['PUT', `/v1/qrs/merchants/${id}/api-key/regenerate`, undefined],
    ] as const) {
      expectError(await call(method, path, { headers: as(other), body }), 404, 'merchant_not_found');
    }
    expect((await call('GET', `/v1/qrs/merchants/${id}`, { headers: as(account) })).body.merchantName).to.equal('Tienda de pruebas 1');
  });
});
