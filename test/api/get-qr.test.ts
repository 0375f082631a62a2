import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';
import { postQr, qrBody } from '../helpers/qr-body.js';

describe('GET /v1/qrs/{qrId}', () => {
  let account: BootstrapResult;
  let created: any;
  before(async () => {
    account = await harness().bootstrap();
    created = (await postQr(account, qrBody(account.storeUid))).body;
  });

  it('answers 200 with the full transaction, identical to the creation answer', async () => {
    const res = await call('GET', `/v1/qrs/${created.qr_id}`, { headers: { 'X-API-Key': account.apiKey } });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(created);
    for (const field of [
      'qr_id',
      'store_uid',
      'sale_id',
      'idempotency_key',
      'operation',
      'amount',
      'subtotal',
      'currency',
      'sat_payment_method',
      'sat_payment_form',
      'type_of_receipt',
      'export_code',
      'status',
      'operation_data',
      'qr_base64',
      'qr_url',
      'qr_content',
      'created_at',
      'updated_at',
      'expires_at',
    ]) {
      expect(res.body, field).to.have.property(field).that.is.not.null;
    }
    expect(res.body).to.include({ scanned_at: null, invoice: null, customer: null, store_name: 'Tienda de pruebas 1' });
  });

  it("answers 404 for an unknown id and for another merchant's transaction", async () => {
    const other = await harness().bootstrap();
    const foreign = await call('GET', `/v1/qrs/${created.qr_id}`, { headers: { 'X-API-Key': other.apiKey } });
    expect(foreign.status).to.equal(404);
    expect(foreign.body.error.code).to.equal('transaction_not_found');
    const unknown = await call('GET', '/v1/qrs/tra_doesnotexist', { headers: { 'X-API-Key': account.apiKey } });
    expect(unknown.status).to.equal(404);
    expect(unknown.body.error.request_id).to.be.a('string');
  });

  it('answers 401 without a valid key', async () => {
    const res = await call('GET', `/v1/qrs/${created.qr_id}`);
    expect(res.status).to.equal(401);
    expect(res.body.error.code).to.equal('unauthorized');
  });

  it('answers the same bytes on every read, and a changed expiry in the next one (the view parts kept per transaction are checked against the row)', async () => {
    const headers = { 'X-API-Key': account.apiKey };
    const first = await call('GET', `/v1/qrs/${created.qr_id}`, { headers });
    const second = await call('GET', `/v1/qrs/${created.qr_id}`, { headers });
    expect(JSON.stringify(second.body)).to.equal(JSON.stringify(first.body));
    expect(JSON.stringify(first.body)).to.equal(JSON.stringify(created));
    const later = new Date(Date.parse(created.expires_at) + 3_600_000);
    await harness().deps.db('qr_transactions').where({ id: created.qr_id }).update({ expires_at: later });
    try {
      const moved = await call('GET', `/v1/qrs/${created.qr_id}`, { headers });
      expect(moved.body.expires_at).to.equal(later.toISOString());
      expect(moved.body.qr_url).to.contain(`exp=${Math.floor(later.getTime() / 1000)}&`);
      const image = await call('GET', new URL(moved.body.qr_url).pathname + new URL(moved.body.qr_url).search);
      expect(image.status).to.equal(200);
      expect({ ...moved.body, expires_at: created.expires_at, qr_url: created.qr_url }).to.deep.equal(created);
    } finally {
      await harness()
        .deps.db('qr_transactions')
        .where({ id: created.qr_id })
        .update({ expires_at: new Date(created.expires_at) });
    }
  });

  it('keeps development data out of reach of a production key of the same merchant', async () => {
    const { createApiKey } = await import('../../shared/repositories/api-keys.js');
    const liveKey = await createApiKey(harness().deps.db, account.merchantId, 'production');
    expect(liveKey.startsWith('sk_live_')).to.equal(true);
    const res = await call('GET', `/v1/qrs/${created.qr_id}`, { headers: { 'X-API-Key': liveKey } });
    expect(res.status).to.equal(404);
  });

  it('answers unknown routes with the error object', async () => {
    const res = await call('GET', '/v1/nothing-here');
    expect(res.status).to.equal(404);
    expect(res.body.error).to.include({ code: 'route_not_found' });
    expect(res.body.error.request_id).to.equal(res.headers.get('x-request-id'));
  });
});
