import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { confirmReviewed, newQrLink, queueEvents, stamped } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';

const IVA16 = [{ type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000' }];

interface Probe {
  method: string;
  path: string;
  /** Who asks: the other account's bearer token or its merchant's API key. */
  as: 'token' | 'key';
  body?: unknown;
  /** 404 unless said otherwise (a credit note naming a foreign invoice is 422 not_found at the field). */
  expected?: number;
}

describe("tenant isolation: every route with another account's ids", function () {
  this.timeout(90_000);
  let owner: BootstrapResult;
  let stranger: BootstrapResult;
  let stampEvents: QueueEvents;
  const ids: Record<string, string> = {};

  before(async () => {
    owner = await harness().bootstrap();
    stranger = await harness().bootstrap();
    stampEvents = await queueEvents('stamp');
    const bearer = { Authorization: `Bearer ${owner.accessToken}` };
    const product = await call('POST', `/v1/qrs/merchants/${owner.merchantId}/products`, {
      headers: bearer,
      body: [{ sku: 'ISO-1', description: 'Producto', unitPrice: 10, satUnitKey: 'H87', satProductServiceKey: '50202301', satTaxObjectKey: '02', taxes: IVA16 }],
    });
    ids.product = product.body[0].productId;
    const link = await newQrLink(owner);
    ids.qr = link.qrId;
    await confirmReviewed(link);
    await stamped(stampEvents, link.qrId);
    ids.uuid = (await harness().deps.db('invoices').where({ transaction_id: link.qrId }).first('uuid')).uuid;
    const credit = await call('POST', '/v1/qrs/invoices/credit-notes', {
      headers: { 'X-API-Key': owner.apiKey },
      body: { related: [{ uuid: ids.uuid, amount: 10 }], sat_payment_form: '03', sat_payment_method: 'PUE' },
    });
    ids.creditNote = credit.body.id;
    const zip = await call('POST', '/v1/qrs/invoices/exports', { headers: { 'X-API-Key': owner.apiKey }, body: {} });
    ids.export = zip.body.export_id;
    const endpoint = await call('POST', '/v1/webhooks/endpoints', { headers: bearer, body: { url: 'http://127.0.0.1:9/hooks' } });
    ids.endpoint = endpoint.body.id;
  });
  after(() => stampEvents.close());

  it("answers 404 (never the owner's data) on every route, with the stranger's token or API key", async () => {
    const { issuerId, merchantId } = owner;
    const probes: Probe[] = [
      { method: 'GET', path: `/v1/qrs/issuers/${issuerId}`, as: 'token' },
      { method: 'POST', path: `/v1/qrs/issuers/${issuerId}/synchronize`, as: 'token' },
      { method: 'PUT', path: `/v1/qrs/issuers/${issuerId}/global-periodicity`, as: 'token', body: { periodicity: '01' } },
      { method: 'GET', path: `/v1/qrs/issuers/${issuerId}/global-invoices`, as: 'token' },
      { method: 'POST', path: `/v1/qrs/issuers/${issuerId}/global-invoices`, as: 'token', body: {} },
      { method: 'GET', path: `/v1/qrs/merchants/${merchantId}`, as: 'token' },
      { method: 'PUT', path: `/v1/qrs/merchants/${merchantId}`, as: 'token', body: { merchantName: 'Tomada' } },
      { method: 'PUT', path: `/v1/qrs/merchants/${merchantId}/status/inactive`, as: 'token' },
      { method: 'PUT', path: `/v1/qrs/merchants/${merchantId}/status/active`, as: 'token' },
      { method: 'GET', path: `/v1/qrs/merchants/${merchantId}/invoice-mode`, as: 'token' },
      { method: 'PUT', path: `/v1/qrs/merchants/${merchantId}/api-key/regenerate`, as: 'token' },
      { method: 'GET', path: `/v1/qrs/merchants/${merchantId}/products`, as: 'token' },
      { method: 'GET', path: `/v1/qrs/merchants/${merchantId}/products/${ids.product}`, as: 'token' },
      { method: 'PUT', path: `/v1/qrs/merchants/${merchantId}/products/${ids.product}`, as: 'token', body: { description: 'Tomado' } },
      { method: 'GET', path: `/v1/qrs/${ids.qr}`, as: 'key' },
      ...(['token', 'key'] as const).flatMap((as): Probe[] => [
        { method: 'GET', path: `/v1/qrs/invoices/uuid/${ids.uuid}/xml`, as },
        { method: 'GET', path: `/v1/qrs/invoices/uuid/${ids.uuid}/pdf`, as },
        { method: 'GET', path: `/v1/qrs/invoices/uuid/${ids.uuid}/cancellation`, as },
        { method: 'GET', path: `/v1/qrs/invoices/uuid/${ids.uuid}/cancellation-acuse`, as },
        { method: 'DELETE', path: `/v1/qrs/invoices/${ids.uuid}`, as, body: { motive: '02' } },
        { method: 'GET', path: `/v1/qrs/invoices/credit-notes/${ids.creditNote}`, as },
        { method: 'GET', path: `/v1/qrs/invoices/exports/${ids.export}`, as },
        { method: 'POST', path: '/v1/qrs/invoices/exports', as, body: { merchant_id: merchantId } },
        {
          method: 'POST',
          path: '/v1/qrs/invoices/credit-notes',
          as,
          body: { related: [{ uuid: ids.uuid, amount: 1 }], sat_payment_form: '03', sat_payment_method: 'PUE' },
          expected: 422,
        },
      ]),
      { method: 'GET', path: `/v1/webhooks/endpoints/${ids.endpoint}`, as: 'token' },
      { method: 'GET', path: `/v1/webhooks/endpoints/${ids.endpoint}/deliveries`, as: 'token' },
      { method: 'DELETE', path: `/v1/webhooks/endpoints/${ids.endpoint}`, as: 'token' },
    ];
    const secrets = [owner.issuerId, owner.merchantId, owner.storeUid, ids.qr, ids.uuid, ids.product, ids.creditNote, ids.export, ids.endpoint, 'ESCUELA KEMPER'].filter(
      (s): s is string => s !== undefined,
    );
    const wrong: string[] = [];
    for (const probe of probes) {
      const headers: Record<string, string> = probe.as === 'token' ? { Authorization: `Bearer ${stranger.accessToken}` } : { 'X-API-Key': stranger.apiKey };
      const res = await call(probe.method, probe.path, { headers, body: probe.body });
      const expected = probe.expected ?? 404;
      const text = JSON.stringify(res.body);
      // The error may repeat the id the caller sent in the path; it must not show anything else of the owner's.
      const leaked = secrets.filter((s) => !probe.path.includes(s) && !JSON.stringify(probe.body ?? '').includes(s) && text.includes(s));
      if (res.status !== expected || leaked.length > 0 || !res.body.error)
        wrong.push(`${probe.method} ${probe.path} as ${probe.as}: ${res.status} ${leaked.join(',')} ${text.slice(0, 200)}`);
    }
    expect(wrong).to.deep.equal([]);
    // And the owner's things are untouched.
    const merchant = await call('GET', `/v1/qrs/merchants/${owner.merchantId}`, { headers: { Authorization: `Bearer ${owner.accessToken}` } });
    expect(merchant.body).to.include({ status: 'ACTIVE' });
    expect(merchant.body.merchantName).to.not.equal('Tomada');
    expect((await harness().deps.db('invoices').where({ uuid: ids.uuid }).first('status')).status).to.equal('ACTIVE');
    expect((await call('GET', `/v1/webhooks/endpoints/${ids.endpoint}`, { headers: { Authorization: `Bearer ${owner.accessToken}` } })).status).to.equal(200);
  });
});
