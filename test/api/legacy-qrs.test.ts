import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { QueueEvents } from 'bullmq';
import { expect } from 'chai';
import Koa from 'koa';
import { pino } from 'pino';
import type { AppState } from '../../api/context.js';
import { errorHandler } from '../../api/middleware/error-handler.js';
import { requestContext } from '../../api/middleware/request-context.js';
import { legacyQrRoutes } from '../../api/routes/legacy-qrs.js';
import { routerOf } from '../../api/routing/api-router.js';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { legacyQrCreatedSchema, legacyQrResolvedSchema } from '../../api/contract/legacy/legacy-qr-schema.js';
import { newQrToken, qrContent, signQrToken } from '../../shared/qr/qr-link.js';
import { ajv } from '../../shared/platform/validation/ajv.js';
import { confirmReviewed, queueEvents, stamped } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call, expectError, type Answer } from '../helpers/http.js';
import { qrBody } from '../helpers/qr-body.js';

const BASE = 'https://factura.example.test';
const SUNSET = 'Wed, 30 Jun 2027 00:00:00 GMT';
const isCreated = ajv.compile(legacyQrCreatedSchema);
const isResolved = ajv.compile(legacyQrResolvedSchema);

/** The sample sale in the earlier contract's words. */
function legacyBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const sale = qrBody('unused');
  return {
    store: 'dev-store-1',
    issuer_rfc: 'EKU9003173C9',
    amount: sale.amount,
    subtotal: sale.subtotal,
    currency: 'MXN',
    sat_payment_method: '04',
    expires_at: sale.expires_at,
    operation: 'INVOICE',
    operation_data: sale.operation_data,
    ...overrides,
  };
}

function postLegacy(account: BootstrapResult, body: unknown, key: string = randomUUID(), extra: Record<string, string> = {}) {
  return call('POST', '/api/v1/qrs', { headers: { 'X-API-Key': account.apiKey, 'Idempotency-Key': key, ...extra }, body });
}

function getLegacy(account: BootstrapResult, link: { v: string; t: string; m: string }) {
  return call('GET', `/api/v1/qrs?${new URLSearchParams(link).toString()}`, { headers: { 'X-API-Key': account.apiKey } });
}

function linkOf(qrContentUrl: string): { v: string; t: string; m: string } {
  const url = new URL(qrContentUrl);
  return { v: url.searchParams.get('v')!, t: url.searchParams.get('t')!, m: url.searchParams.get('m')! };
}

function expectDeprecated(res: Answer, successor?: string): void {
  expect(res.headers.get('deprecation')).to.equal('@1795392000');
  expect(res.headers.get('sunset')).to.equal(SUNSET);
  const docs = `<${BASE}/docs>; rel="deprecation"`;
  expect(res.headers.get('link')).to.equal(successor ? `<${BASE}${successor}>; rel="successor-version", ${docs}` : docs);
}

async function rowsWithKey(key: string): Promise<number> {
  const db = harness().deps.db;
  const [qrs, keys] = await Promise.all([db('qr_transactions').where({ idempotency_key: key }), db('idempotency_keys').where({ key })]);
  return qrs.length + keys.length;
}

/** A new QR through the earlier route: its key, its id and the link parameters. */
async function legacyQr(account: BootstrapResult, overrides: Record<string, unknown> = {}) {
  const key = randomUUID();
  const res = await postLegacy(account, legacyBody(overrides), key);
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  const row = await harness().deps.db('qr_transactions').where({ idempotency_key: key }).first('id');
  return { key, qrId: row.id as string, link: linkOf(res.body.qr_content as string), created: res.body as Record<string, unknown> };
}

describe('The earlier contract: POST /api/v1/qrs', () => {
  let account: BootstrapResult;
  before(async () => {
    account = await harness().bootstrap();
  });

  it('answers 201 with exactly the five earlier fields and the deprecation headers', async () => {
    const res = await postLegacy(account, legacyBody());
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(Object.keys(res.body).sort()).to.deep.equal(['created_at', 'expires_at', 'qr_base64', 'qr_content', 'qr_url']);
    expect(isCreated(res.body), JSON.stringify(isCreated.errors)).to.equal(true);
    expect(res.body.qr_content).to.match(/^https:\/\/factura\.example\.test\/q\?v=1&t=[A-Za-z0-9_-]{22}&m=[A-Za-z0-9_-]{22}$/);
    expect(res.body.qr_base64).to.match(/^data:image\/png;base64,/);
    expectDeprecated(res, '/v1/qrs');
  });

  it('creates through the current path: GET /v1/qrs/{qrId} shows the mapped sale and the documented defaults', async () => {
    const body = legacyBody();
    const { key, qrId, created } = await legacyQr(account, body);
    const qr = (await call('GET', `/v1/qrs/${qrId}`, { headers: { 'X-API-Key': account.apiKey } })).body;
    expect(qr).to.include({
      store_uid: 'dev-store-1',
      sale_id: `legacy-${key}`,
      idempotency_key: key,
      operation: 'INVOICE',
      amount: 302.32,
      subtotal: 262,
      currency: 'MXN',
      sat_payment_form: '04',
      sat_payment_form_desc: 'Tarjeta de crédito',
      sat_payment_method: 'PUE',
      type_of_receipt: 'I',
      export_code: '01',
      status: 'PENDING',
      issuer_rfc: 'EKU9003173C9',
      expires_at: created.expires_at,
      qr_content: created.qr_content,
      metadata: null,
    });
    expect(qr.operation_data.map((c: { sku: string | null }) => c.sku)).to.deep.equal(['MAGNA', 'AGUA-1L', null]);
    expect(qr.operation_data[0].taxes[0]).to.deep.equal({ type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000', taxable_base: 215, amount: 34.4 });
    const row = await harness().deps.db('qr_transactions').where({ id: qrId }).first('time_zone');
    expect(row.time_zone).to.equal('America/Mexico_City');
  });

  it('takes the store by name (any case) or merchantId, X-TIME-ZONE when sent, and PPD for payment form 99', async () => {
    const byName = await legacyQr(account, { store: 'tienda DE PRUEBAS 1', sat_payment_method: '99' });
    const byId = await legacyQr(account, { store: account.merchantId });
    const zoned = randomUUID();
    expect((await postLegacy(account, legacyBody(), zoned, { 'X-TIME-ZONE': 'America/Tijuana' })).status).to.equal(201);
    const db = harness().deps.db;
    expect(await db('qr_transactions').where({ id: byName.qrId }).first('store_uid', 'sat_payment_method', 'sat_payment_form')).to.deep.equal({
      store_uid: 'dev-store-1',
      sat_payment_method: 'PPD',
      sat_payment_form: '99',
    });
    expect((await db('qr_transactions').where({ id: byId.qrId }).first('store_uid')).store_uid).to.equal(account.merchantId);
    expect((await db('qr_transactions').where({ idempotency_key: zoned }).first('time_zone')).time_zone).to.equal('America/Tijuana');
  });

  it('replays the same QR for the same Idempotency-Key and body, and answers 409 for a changed body', async () => {
    const body = legacyBody();
    const key = randomUUID();
    const first = await postLegacy(account, body, key);
    const again = await postLegacy(account, body, key);
    expect(again.status).to.equal(201);
    expect(again.body).to.deep.equal(first.body);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expectDeprecated(again, '/v1/qrs');

    const changed = await postLegacy(account, { ...body, amount: 302.33 }, key);
    expectError(changed, 409, 'idempotency_key_reused');
    expect(changed.body.error.message).to.include('Idempotency-Key');
    expectDeprecated(changed, '/v1/qrs');
    expect(await harness().deps.db('qr_transactions').where({ idempotency_key: key })).to.have.length(1);
  });

  it('refuses an invalid earlier body with 400 naming the earlier fields, and writes nothing', async () => {
    const key = randomUUID();
    const { store: _store, ...withoutStore } = legacyBody();
    const res = await postLegacy(account, { ...withoutStore, store_uid: 'dev-store-1', sat_payment_method: 'PUE', currency: 'USD' }, key);
    expectError(res, 400, 'validation_failed');
    expectDeprecated(res, '/v1/qrs');
    const fields = (res.body.error.details as { field: string; code: string }[]).map((d) => `${d.field} ${d.code}`);
    expect(fields).to.include.members(['store required', 'store_uid unknown_field', 'sat_payment_method invalid_format', 'currency invalid_value']);
    expect(await rowsWithKey(key)).to.equal(0);

    const discount = legacyBody();
    (discount.operation_data as Record<string, unknown>[])[0]!.discount = 1;
    const withDiscount = await postLegacy(account, discount, key);
    expectError(withDiscount, 400, 'validation_failed');
    expect(withDiscount.body.error.details).to.deep.include({
      field: 'operation_data[0].discount',
      code: 'unknown_field',
      message: 'operation_data[0].discount is not a field of this request.',
    });
    expect(await rowsWithKey(key)).to.equal(0);
  });

  it('names the earlier fields and headers in refusals of the current path too', async () => {
    const past = await postLegacy(account, legacyBody({ expires_at: new Date(Date.now() - 60_000).toISOString() }));
    expectError(past, 400, 'validation_failed');
    expect(past.body.error.details).to.deep.include({ field: 'expires_at', code: 'in_the_past', message: 'expires_at must be in the future.' });

    const noKey = await call('POST', '/api/v1/qrs', { headers: { 'X-API-Key': account.apiKey }, body: legacyBody() });
    expectError(noKey, 400, 'validation_failed');
    expect(noKey.body.error.details.map((d: { field: string }) => d.field)).to.deep.equal(['Idempotency-Key']);

    const key = randomUUID();
    const unknownForm = await postLegacy(account, legacyBody({ sat_payment_method: '50' }), key);
    expectError(unknownForm, 422, 'rule_violation');
    expect(unknownForm.body.error.details).to.deep.equal([{ field: 'sat_payment_method', code: 'catalog_key_unknown', message: '"50" is not a key of SAT\'s c_FormaPago.' }]);
    expect(await rowsWithKey(key)).to.equal(0);
  });

  it("refuses another merchant's store (404) and another issuer's RFC (422), writing nothing", async () => {
    const other = await harness().bootstrap();
    const foreignKey = randomUUID();
    const foreign = await postLegacy(account, legacyBody({ store: other.merchantId }), foreignKey);
    expectError(foreign, 404, 'store_not_found');
    expect(foreign.body.error.details.map((d: { field: string }) => d.field)).to.deep.equal(['store']);
    expect(foreign.body.error.message).to.not.include('store_uid');
    expectDeprecated(foreign, '/v1/qrs');
    expect(await rowsWithKey(foreignKey)).to.equal(0);

    const rfcKey = randomUUID();
    const wrongRfc = await postLegacy(account, legacyBody({ issuer_rfc: 'XIA190128J61' }), rfcKey);
    expectError(wrongRfc, 422, 'issuer_mismatch');
    expect(wrongRfc.body.error.details.map((d: { field: string }) => d.field)).to.deep.equal(['issuer_rfc']);
    expect(await rowsWithKey(rfcKey)).to.equal(0);
  });

  it('answers 401 without a valid key, with the deprecation headers', async () => {
    const res = await call('POST', '/api/v1/qrs', { headers: { 'Idempotency-Key': randomUUID() }, body: legacyBody() });
    expectError(res, 401, 'unauthorized');
    expectDeprecated(res, '/v1/qrs');
  });
});

describe('The earlier contract: GET /api/v1/qrs?v&t&m', () => {
  let account: BootstrapResult;
  let events: QueueEvents;
  before(async () => {
    account = await harness().bootstrap();
    events = await queueEvents('stamp');
  });
  after(async () => {
    await events.close();
  });

  it('answers the earlier shape, links the current route, and leaves the QR PENDING', async () => {
    const { qrId, link, created } = await legacyQr(account);
    const res = await getLegacy(account, link);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(isResolved(res.body), JSON.stringify(isResolved.errors)).to.equal(true);
    expect(res.body).to.include({
      id: qrId,
      store: 'dev-store-1',
      issuer_rfc: 'EKU9003173C9',
      issuer_name: 'ESCUELA KEMPER URGATE',
      amount: 302.32,
      subtotal: 262,
      currency: 'MXN',
      sat_payment_method: '04',
      sat_payment_method_desc: 'Tarjeta de crédito',
      operation: 'INVOICE',
      created_at: created.created_at,
      expires_at: created.expires_at,
    });
    expect(res.body.operation_data[0]).to.include({ sku: 'MAGNA', amount: 215, sat_unit_desc: 'Litro', sat_product_service_desc: 'Gasolina regular menor a 91 octanos' });
    expectDeprecated(res, `/v1/qrs/${qrId}`);

    expect(await harness().deps.db('qr_transactions').where({ id: qrId }).first('status', 'scanned_at')).to.deep.equal({ status: 'PENDING', scanned_at: null });
  });

  it("answers 400 for a tampered link, 404 for an unknown token or another merchant's QR, 401 without a key", async () => {
    const { link } = await legacyQr(account);
    // The first character: the last one of 22 carries padding bits that decoding ignores.
    const tampered = await getLegacy(account, { ...link, m: `${link.m.startsWith('A') ? 'B' : 'A'}${link.m.slice(1)}` });
    expectError(tampered, 400, 'invalid_signature');
    expectDeprecated(tampered);
    expectError(await getLegacy(account, { ...link, v: '2' }), 400, 'unsupported_version');

    const unknown = linkOf(qrContent(BASE, signQrToken(newQrToken(), harness().deps.config.qrHmacKey)));
    expectError(await getLegacy(account, unknown), 404, 'qr_not_found');

    const other = await harness().bootstrap();
    const foreign = await legacyQr(other);
    const res = await getLegacy(account, foreign.link);
    expectError(res, 404, 'qr_not_found');
    expectDeprecated(res);
    expect(res.headers.get('link')).to.not.include(foreign.qrId);

    const noKey = await call('GET', `/api/v1/qrs?${new URLSearchParams(link).toString()}`);
    expectError(noKey, 401, 'unauthorized');
    expectDeprecated(noKey);
  });

  it('answers 410 for an expired or cancelled QR, with the link to it', async () => {
    const db = harness().deps.db;
    const expired = await legacyQr(account);
    await db('qr_transactions').where({ id: expired.qrId }).update({ status: 'EXPIRED' });
    const res = await getLegacy(account, expired.link);
    expectError(res, 410, 'qr_expired');
    expectDeprecated(res, `/v1/qrs/${expired.qrId}`);

    const pastDue = await legacyQr(account);
    await db('qr_transactions')
      .where({ id: pastDue.qrId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expectError(await getLegacy(account, pastDue.link), 410, 'qr_expired');

    const cancelled = await legacyQr(account);
    await db('qr_transactions').where({ id: cancelled.qrId }).update({ status: 'CANCELLED' });
    expectError(await getLegacy(account, cancelled.link), 410, 'qr_cancelled');
  });

  it('answers 409 for a QR already invoiced (consumed)', async () => {
    const { qrId, link } = await legacyQr(account);
    expect((await confirmReviewed({ ...link, qrId })).status).to.equal(202);
    await stamped(events, qrId);
    const res = await getLegacy(account, link);
    expectError(res, 409, 'qr_already_invoiced');
    expectDeprecated(res, `/v1/qrs/${qrId}`);
  });
});

describe('The earlier contract after its sunset', () => {
  let account: BootstrapResult;
  before(async () => {
    account = await harness().bootstrap();
  });

  /** The earlier routes alone, on the harness's dependencies, with the clock the test sets. */
  async function withClock<T>(now: Date, run: (url: string) => Promise<T>): Promise<T> {
    const app = new Koa<AppState>();
    app.silent = true;
    app.use(requestContext(pino({ level: 'silent' })));
    app.use(errorHandler());
    const router = routerOf(harness().deps, legacyQrRoutes({ now: () => now }));
    app.use(router.routes());
    const server: Server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      return await run(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
    } finally {
      server.close();
    }
  }

  async function fetchAnswer(url: string, init: RequestInit): Promise<Answer> {
    const res = await fetch(url, init);
    return { status: res.status, headers: res.headers, body: await res.json() };
  }

  it('works with the headers until the sunset, then both routes answer 410 endpoint_sunset with the Link and write nothing', async () => {
    const { link } = await legacyQr(account);
    const query = new URLSearchParams(link).toString();
    const headers = { 'X-API-Key': account.apiKey, 'content-type': 'application/json' };

    const before = await withClock(new Date('2027-06-29T23:59:59Z'), (url) => fetchAnswer(`${url}/api/v1/qrs?${query}`, { headers }));
    expect(before.status).to.equal(200);
    expect(before.headers.get('sunset')).to.equal(SUNSET);

    const key = randomUUID();
    const [created, read] = await withClock(new Date('2027-06-30T00:00:00Z'), (url) =>
      Promise.all([
        fetchAnswer(`${url}/api/v1/qrs`, { method: 'POST', headers: { ...headers, 'Idempotency-Key': key }, body: JSON.stringify(legacyBody()) }),
        fetchAnswer(`${url}/api/v1/qrs?${query}`, { headers }),
      ]),
    );
    expectError(created, 410, 'endpoint_sunset');
    expect(created.body.error.message).to.include('POST /v1/qrs');
    expectDeprecated(created, '/v1/qrs');
    expectError(read, 410, 'endpoint_sunset');
    expect(read.body.error.message).to.include('GET /v1/qrs/{qrId}');
    expectDeprecated(read);
    expect(await rowsWithKey(key)).to.equal(0);
  });
});
