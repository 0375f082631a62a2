import { createHash, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { principalsChanged } from '../../shared/platform/principal-generation.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';
import { postQr, qrBody, qrHeaders } from '../helpers/qr-body.js';
import { removeServiceKeys, serviceKeys } from '../helpers/redis-keys.js';

async function countTransactions(merchantId: string): Promise<number> {
  const row = (await harness().deps.db('qr_transactions').where({ merchant_id: merchantId }).count<{ count: string }[]>('* as count'))[0];
  return Number(row?.count ?? 0);
}

/** The idempotency cache's entries are found by the presented key's id: a prefix of its SHA-256. */
const cacheHolder = (a: BootstrapResult) => createHash('sha256').update(a.apiKey).digest('base64url').slice(0, 22);

describe('POST /v1/qrs', () => {
  let account: BootstrapResult;
  before(async () => {
    account = await harness().bootstrap();
  });

  it('creates a PENDING transaction and answers 201 with the spec fields and catalog descriptions', async () => {
    const body = qrBody(account.storeUid);
    const key = randomUUID();
    const res = await postQr(account, body, key);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const qr = res.body;
    expect(qr.qr_id).to.match(/^tra_[A-Za-z0-9_-]{22}$/);
    expect(qr).to.include({
      store_uid: account.storeUid,
      sale_id: body.sale_id,
      idempotency_key: key,
      operation: 'INVOICE',
      amount: 302.32,
      subtotal: 262,
      currency: 'MXN',
      sat_payment_method: 'PUE',
      sat_payment_form: '04',
      type_of_receipt: 'I',
      export_code: '01',
      status: 'PENDING',
      issuer_rfc: 'EKU9003173C9',
      issuer_name: 'ESCUELA KEMPER URGATE',
      scanned_at: null,
      invoice: null,
      customer: null,
    });
    expect(qr.sat_payment_method_desc).to.equal('Pago en una sola exhibición');
    expect(qr.sat_payment_form_desc).to.equal('Tarjeta de crédito');
    expect(qr.type_of_receipt_desc).to.equal('Ingreso');
    expect(qr.export_code_desc).to.equal('No aplica');
    expect(qr.operation_data).to.have.length(3);
    expect(qr.operation_data[0]).to.include({
      sat_unit_desc: 'Litro',
      sat_product_service_desc: 'Gasolina regular menor a 91 octanos',
      sat_tax_object_desc: 'Sí objeto de impuesto.',
    });
    expect(qr.operation_data[0].taxes[0]).to.deep.equal({ type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000', taxable_base: 215, amount: 34.4 });
    expect(qr.operation_data[2].taxes).to.deep.equal([]);
    expect(qr.metadata).to.deep.equal({ pos: 'caja-3' });
    expect(qr.qr_content).to.match(/^https:\/\/factura\.example\.test\/q\?v=1&t=[A-Za-z0-9_-]{22}&m=[A-Za-z0-9_-]{22}$/);
    expect(qr.qr_base64).to.match(/^data:image\/png;base64,/);
    expect(qr.qr_url).to.match(new RegExp(`^https://factura\\.example\\.test/v1/public/qrs/images/${qr.qr_id}\\.png\\?exp=\\d+&sig=`));
    // Asked for 5 days; the close of the issuer's monthly global-invoice period cuts it when sooner.
    const requested = new Date(body.expires_at);
    const closes = new Date(qr.global_period.closes_at);
    expect(qr.global_period.periodicity).to.equal('04');
    expect(qr.expires_at).to.equal((requested < closes ? requested : closes).toISOString());
    expect(qr.expires_at_requested).to.equal(requested < closes ? null : requested.toISOString());
    expect(qr.global_invoice).to.equal(null);
    expect(res.headers.get('idempotent-replayed')).to.equal(null);

    const row = await harness().deps.db('qr_transactions').where({ id: qr.qr_id }).first();
    expect(row).to.include({ status: 'PENDING', amount: '302.320000', subtotal: '262.000000', time_zone: 'America/Mexico_City', mode: 'development' });
    expect(row.issued_local).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    const concepts = await harness().deps.db('qr_concepts').where({ transaction_id: qr.qr_id }).orderBy('position');
    expect(concepts.map((c: { quantity: string }) => c.quantity)).to.deep.equal(['10.000000', '2.000000', '1.000000']);
    expect(await harness().deps.db('qr_concept_taxes').where({ transaction_id: qr.qr_id })).to.have.length(2);
  });

  it('accepts the externalMerchantId or the merchantId as store_uid, and nothing else (404)', async () => {
    const byId = await postQr(account, qrBody(account.merchantId));
    expect(byId.status).to.equal(201);
    const other = await harness().bootstrap();
    const foreign = await postQr(account, qrBody(other.merchantId));
    expectError(foreign, 404, 'store_not_found');
    const unknown = await postQr(account, qrBody('no-such-store'));
    expectError(unknown, 404, 'store_not_found');
    // The answer names the value that works: the storeUid bootstrap printed (issue #29).
    expect(unknown.body.error.message).to.include(`"${account.storeUid}"`);
    expect(unknown.body.error.details[0].expected).to.equal(account.storeUid);
  });

  describe('idempotency', () => {
    it('replays the same transaction for the same key and body, with Idempotent-Replayed', async () => {
      const body = qrBody(account.storeUid);
      const key = randomUUID();
      const first = await postQr(account, body, key);
      const before = await countTransactions(account.merchantId);
      const again = await postQr(account, JSON.parse(JSON.stringify(body)), key);
      expect(again.status).to.equal(201);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.body).to.deep.equal(first.body);
      expect(await countTransactions(account.merchantId)).to.equal(before);
    });

    it('treats key order and whitespace as the same body', async () => {
      const body = qrBody(account.storeUid);
      const key = randomUUID();
      const first = await postQr(account, body, key);
      const reordered = Object.fromEntries(Object.entries(body).reverse());
      const again = await call('POST', '/v1/qrs', { headers: { ...qrHeaders(account, key), 'content-type': 'application/json' }, rawBody: JSON.stringify(reordered, null, 4) });
      expect(again.status).to.equal(201);
      expect(again.body.qr_id).to.equal(first.body.qr_id);
    });

    it('answers 409 idempotency_key_reused for the same key with a different body, and writes nothing', async () => {
      const key = randomUUID();
      await postQr(account, qrBody(account.storeUid), key);
      const before = await countTransactions(account.merchantId);
      const changed = await postQr(account, qrBody(account.storeUid), key);
      expectError(changed, 409, 'idempotency_key_reused');
      expect(changed.body.error.message).to.include('different request body');
      expect(await countTransactions(account.merchantId)).to.equal(before);
    });

    it('the 409 for the same body and key with another X-TIME-ZONE says it is the time zone that differs', async () => {
      const key = randomUUID();
      const body = qrBody(account.storeUid);
      expect((await postQr(account, body, key)).status).to.equal(201);
      const otherZone = await postQr(account, body, key, { 'X-TIME-ZONE': 'America/Tijuana' });
      expectError(otherZone, 409, 'idempotency_key_reused');
      expect(otherZone.body.error.message).to.equal(
        'This idempotency-key was already used with X-TIME-ZONE America/Mexico_City, not America/Tijuana; send the same headers to replay it, or use a new key for a new sale.',
      );
      expect(otherZone.body.error.details).to.deep.equal([
        { field: 'X-TIME-ZONE', code: 'differs_from_first_request', message: 'The first request with this key said America/Mexico_City.' },
      ]);
    });

    it('answers the same sale under a different key with the QR it has (409 sale_has_qr), and another sale with a new QR', async () => {
      const body = qrBody(account.storeUid);
      const a = await postQr(account, body);
      expect(a.status).to.equal(201);
      const again = await postQr(account, body);
      expect(again.status).to.equal(409);
      expect(again.body.error).to.include({ code: 'sale_has_qr' });
      expect(again.body.error.qr.qr_id).to.equal(a.body.qr_id);
      const b = await postQr(account, { ...body, sale_id: `${body.sale_id}-2` });
      expect(b.status).to.equal(201);
      expect(a.body.qr_id).to.not.equal(b.body.qr_id);
    });

    it('creates exactly one transaction for 20 concurrent requests with one key, all answering it', async () => {
      const body = qrBody(account.storeUid);
      const key = randomUUID();
      const before = await countTransactions(account.merchantId);
      const answers = await Promise.all(Array.from({ length: 20 }, () => postQr(account, body, key)));
      expect(answers.map((a) => a.status)).to.deep.equal(Array(20).fill(201));
      expect(new Set(answers.map((a) => a.body.qr_id)).size).to.equal(1);
      expect(await countTransactions(account.merchantId)).to.equal(before + 1);
      expect(await harness().deps.db('idempotency_keys').where({ key })).to.have.length(1);
    });

    it('replays from PostgreSQL after the Redis idempotency data is flushed', async () => {
      const body = qrBody(account.storeUid);
      const key = randomUUID();
      const first = await postQr(account, body, key);
      // This API key's entries only: the Redis is shared with whatever else runs on the machine.
      const cached = await serviceKeys(harness().redis, `idem:*:${cacheHolder(account)}:*`);
      expect(cached.length).to.be.greaterThan(0);
      await harness().redis.del(...cached);
      const again = await postQr(account, body, key);
      expect(again.status).to.equal(201);
      expect(again.body).to.deep.equal(first.body);
      expectError(await postQr(account, qrBody(account.storeUid), key), 409, 'idempotency_key_reused');
    });

    it('answers 409, not 500, for a key whose idempotency record left with its retention (issue #41)', async () => {
      const body = qrBody(account.storeUid);
      const key = randomUUID();
      expect((await postQr(account, body, key)).status).to.equal(201);
      await removeServiceKeys(harness().redis, `idem:*:${cacheHolder(account)}:*`);
      // As the keeper's DROP of the record's day leaves it: the sale keeps its key, the record is gone.
      await harness().deps.db('idempotency_keys').where({ merchant_id: account.merchantId, key }).del();
      const before = await countTransactions(account.merchantId);
      expectError(await postQr(account, body, key), 409, 'idempotency_key_reused');
      expect(await countTransactions(account.merchantId)).to.equal(before);
      expect(await harness().deps.db('idempotency_keys').where({ key })).to.have.length(0);
    });

    it('after Redis lost the key, answers the transaction even when the same body would now be refused', async () => {
      const other = await harness().bootstrap();
      const body = qrBody(other.storeUid);
      const key = randomUUID();
      const first = await postQr(other, body, key);
      await removeServiceKeys(harness().redis, `idem:*:${cacheHolder(other)}:*`);
      await harness().deps.db('merchants').where({ id: other.merchantId }).update({ status: 'INACTIVE' });
      await principalsChanged(harness().deps.redis, harness().deps.logger);
      const again = await postQr(other, body, key);
      expect(again.status).to.equal(201);
      expect(again.body).to.deep.equal(first.body);
      expectError(await postQr(other, qrBody(other.storeUid)), 422, 'merchant_inactive');
    });

    it('scopes keys to the merchant: another merchant may use the same key', async () => {
      const other = await harness().bootstrap();
      const key = randomUUID();
      const a = await postQr(account, qrBody(account.storeUid), key);
      const b = await postQr(other, qrBody(other.storeUid), key);
      expect(a.status).to.equal(201);
      expect(b.status).to.equal(201);
      expect(a.body.qr_id).to.not.equal(b.body.qr_id);
    });

    it('does not record a key for a refused request: a corrected body with the same key succeeds', async () => {
      const key = randomUUID();
      const bad = await postQr(account, { ...qrBody(account.storeUid), amount: 'many' }, key);
      expectError(bad, 400, 'validation_failed');
      const good = await postQr(account, qrBody(account.storeUid), key);
      expect(good.status).to.equal(201);
    });
  });

  describe('headers and authentication', () => {
    it('answers 401 without an API key or with an unknown one', async () => {
      const body = qrBody(account.storeUid);
      const none = await call('POST', '/v1/qrs', { headers: { 'X-TIME-ZONE': 'America/Mexico_City', 'idempotency-key': randomUUID() }, body });
      expectError(none, 401, 'unauthorized');
      const wrong = await postQr({ ...account, apiKey: `${account.apiKey.slice(0, -4)}AAAA` }, body);
      expectError(wrong, 401, 'unauthorized');
      expectError(await postQr({ ...account, apiKey: 'garbage' }, body), 401, 'unauthorized');
    });

    it('requires X-TIME-ZONE to be an IANA zone and idempotency-key to be a UUID', async () => {
      const body = qrBody(account.storeUid);
      const missing = await call('POST', '/v1/qrs', { headers: { 'X-API-Key': account.apiKey }, body });
      expectError(missing, 400, 'validation_failed');
      expect(missing.body.error.details.map((d: { field: string }) => d.field)).to.deep.equal(['X-TIME-ZONE', 'idempotency-key']);
      const badZone = await postQr(account, body, undefined, { 'X-TIME-ZONE': 'Mars/Olympus_Mons' });
      expectError(badZone, 400, 'validation_failed');
      expect(badZone.body.error.details[0]).to.include({ field: 'X-TIME-ZONE', code: 'invalid_time_zone' });
      const offset = await postQr(account, body, undefined, { 'X-TIME-ZONE': '+06:00' });
      expectError(offset, 400, 'validation_failed');
      const badKey = await postQr(account, body, 'not-a-uuid');
      expect(badKey.body.error.details[0]).to.include({ field: 'idempotency-key', code: 'invalid_format' });
    });

    it('stores the local emission time of the given zone', async () => {
      const res = await postQr(account, qrBody(account.storeUid), undefined, { 'X-TIME-ZONE': 'Asia/Tokyo' });
      const row = await harness().deps.db('qr_transactions').where({ id: res.body.qr_id }).first('issued_local', 'created_at', 'time_zone');
      const tokyo = new Date(row.created_at.getTime() + 9 * 3_600_000).toISOString().slice(0, 19);
      expect(row.time_zone).to.equal('Asia/Tokyo');
      expect(row.issued_local).to.equal(tokyo);
    });
  });

  describe('body handling', () => {
    it('answers 400 malformed_json, 415 for another content type and 413 over the size limit', async () => {
      const headers = qrHeaders(account);
      expectError(await call('POST', '/v1/qrs', { headers: { ...headers, 'content-type': 'application/json' }, rawBody: '{"store_uid": ' }), 400, 'malformed_json');
      expectError(await call('POST', '/v1/qrs', { headers: { ...headers, 'content-type': 'text/plain' }, rawBody: 'hello' }), 415, 'unsupported_media_type');
      const huge = JSON.stringify({ ...qrBody(account.storeUid), sale_id: 'x'.repeat(300_000) });
      const tooLarge = await call('POST', '/v1/qrs', { headers: { ...headers, 'content-type': 'application/json' }, rawBody: huge });
      expectError(tooLarge, 413, 'payload_too_large');
      expect(tooLarge.body.error.message, 'the limit, so the caller knows how much to cut').to.include('262144 bytes (256 KiB)');
    });

    it('reports every schema problem with its field in details[]', async () => {
      const body = qrBody(account.storeUid) as unknown as Record<string, any>;
      delete body.sale_id;
      body.amount = '302.32';
      body.subtotal = 1.1234567;
      body.operation = 'GIFT';
      body.extra = true;
      body.operation_data[0].quantity = 1234567890;
      const res = await postQr(account, body);
      expectError(res, 400, 'validation_failed');
      const found = res.body.error.details.map((d: { field: string; code: string }) => `${d.field}:${d.code}`);
      expect(found).to.include.members([
        'sale_id:required',
        'amount:invalid_type',
        'subtotal:invalid_precision',
        'operation:invalid_value',
        'extra:unknown_field',
        'operation_data[0].quantity:invalid_precision',
      ]);
    });

    it('refuses expires_at in the past or more than 31 days ahead, and a foreign currency without exchange_rate', async () => {
      const past = await postQr(account, qrBody(account.storeUid, { expires_at: new Date(Date.now() - 1000).toISOString() }));
      expectError(past, 400, 'validation_failed');
      expect(past.body.error.details[0]).to.include({ field: 'expires_at', code: 'in_the_past' });
      const far = await postQr(account, qrBody(account.storeUid, { expires_at: new Date(Date.now() + 32 * 86_400_000).toISOString() }));
      expect(far.body.error.details[0]).to.include({ field: 'expires_at', code: 'too_far' });
      const usd = await postQr(account, qrBody(account.storeUid, { currency: 'USD' }));
      expectError(usd, 400, 'validation_failed');
      expect(usd.body.error.details[0]).to.include({ field: 'exchange_rate', code: 'required' });
    });
  });

  describe('business rules (422)', () => {
    it('refuses unknown catalog keys with their field', async () => {
      const body = qrBody(account.storeUid, { sat_payment_form: '77', export_code: '09' });
      body.operation_data[1]!.sat_unit_key = 'ZZZ';
      body.operation_data[1]!.sat_product_service_key = '99999999';
      const res = await postQr(account, body);
      expectError(res, 422, 'rule_violation');
      const found = res.body.error.details.map((d: { field: string; code: string }) => `${d.field}:${d.code}`);
      expect(found).to.include.members([
        'sat_payment_form:catalog_key_unknown',
        'export_code:catalog_key_unknown',
        'operation_data[1].sat_unit_key:catalog_key_unknown',
        'operation_data[1].sat_product_service_key:catalog_key_unknown',
      ]);
    });

    it('refuses a catalog key that is no longer in force', async () => {
      const body = qrBody(account.storeUid);
      body.operation_data[0]!.sat_product_service_key = '15101506'; // Gasolina, valid until 2020-01-15
      const res = await postQr(account, body);
      expectError(res, 422, 'rule_violation');
      expect(res.body.error.details).to.deep.include({
        field: 'operation_data[0].sat_product_service_key',
        code: 'catalog_key_not_in_force',
        message: res.body.error.details[0].message,
      });
      expect(res.body.error.details[0].message).to.match(/2020-01-15/);
    });

    it('refuses amounts that do not add up', async () => {
      const body = qrBody(account.storeUid, { amount: 302.33 });
      body.operation_data[0]!.amount = 216;
      const res = await postQr(account, body);
      expectError(res, 422, 'rule_violation');
      const codes = res.body.error.details.map((d: { code: string }) => d.code);
      expect(codes).to.include('concept_amount_mismatch');
      expect(codes).to.include('subtotal_mismatch');
    });

    it('requires taxes for tax object 02 and none for 01', async () => {
      const body = qrBody(account.storeUid);
      delete body.operation_data[0]!.taxes;
      body.operation_data[2]!.taxes = [{ type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000', taxable_base: 10, amount: 1.6 }];
      const res = await postQr(account, body);
      expectError(res, 422, 'rule_violation');
      const found = res.body.error.details.map((d: { field: string; code: string }) => `${d.field}:${d.code}`);
      expect(found).to.include.members(['operation_data[0].taxes:taxes_required', 'operation_data[2].taxes:taxes_not_allowed']);
    });

    it('refuses an INACTIVE merchant and a merchant without CSD, writing nothing', async () => {
      const other = await harness().bootstrap();
      const db = harness().deps.db;
      // Written behind the service's back, announced as its writers do (shared/platform/principal-generation.ts).
      await db('merchants').where({ id: other.merchantId }).update({ status: 'INACTIVE' });
      await principalsChanged(harness().deps.redis, harness().deps.logger);
      expectError(await postQr(other, qrBody(other.storeUid)), 422, 'merchant_inactive');
      await db('merchants').where({ id: other.merchantId }).update({ status: 'ACTIVE' });
      await db('merchant_csds').where({ merchant_id: other.merchantId }).delete();
      await principalsChanged(harness().deps.redis, harness().deps.logger);
      expectError(await postQr(other, qrBody(other.storeUid)), 422, 'csd_not_configured');
      expect(await countTransactions(other.merchantId)).to.equal(0);
    });
  });
});
