import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { offlineTicket } from '../../clients/typescript/src/offline-ticket.js';
import sharp from 'sharp';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { newId } from '../../shared/platform/ids.js';
import { csfPdf, XOCHILT } from '../fixtures/csf/csf-documents.js';
import { confirmReviewed, newQrLink, queueEvents, stamped, type QrLink } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call, jsonAnswers, type Answer } from '../helpers/http.js';
import type { Document, MediaType } from '../helpers/openapi-contract.js';
import { postQr, qrBody } from '../helpers/qr-body.js';

type Json = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  example?: unknown;
  schema?: { format?: string };
}
interface Operation {
  security?: Record<string, unknown>[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, unknown>;
}

/** What the test fills in for one operation: its path parameters, the link in its query, and the example's identifiers replaced by the test's own. */
interface Fill {
  path?: Record<string, string>;
  query?: QrLink;
  replace?: Record<string, string>;
}

/** The example with every string equal to a key of `replace` swapped for its value, however deep. */
function substituted(value: unknown, replace: Record<string, string>): unknown {
  if (typeof value === 'string') return replace[value] ?? value;
  if (Array.isArray(value)) return value.map((v) => substituted(v, replace));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituted(v, replace)]));
}

/** The three parameters of an example's QR link, replaced by those of a real one. */
const linkOf = (example: Json, link: QrLink) => ({ [String(example.t)]: link.t, [String(example.m)]: link.m });

async function stampedQr(account: BootstrapResult, overrides: Parameters<typeof qrBody>[1] = {}): Promise<{ link: QrLink; uuid: string }> {
  const link = await newQrLink(account, overrides);
  const events = await queueEvents('stamp');
  try {
    expect((await confirmReviewed(link)).status).to.equal(202);
    await stamped(events, link.qrId);
  } finally {
    await events.close();
  }
  const qr = (await call('GET', `/v1/qrs/${link.qrId}`, { headers: { 'X-API-Key': account.apiKey } })).body;
  expect(qr.status, JSON.stringify(qr)).to.equal('INVOICED');
  return { link, uuid: qr.invoice.uuid as string };
}

/** A multipart request built from a form's example: a file part gets the bytes of the file it names. */
async function sendForm(method: string, url: string, headers: Record<string, string>, example: Json, schema: Json, files: Record<string, Buffer>): Promise<Answer> {
  const properties = schema.properties as Record<string, { format?: string }>;
  const form = new FormData();
  for (const [field, value] of Object.entries(example)) {
    if (properties[field]?.format === 'binary') {
      const data = files[String(value)];
      if (!data) throw new Error(`no file for ${String(value)}`);
      form.append(field, new Blob([new Uint8Array(data)]), String(value));
    } else {
      form.append(field, String(value));
    }
  }
  const res = await fetch(`${harness().baseUrl}${url}`, { method, headers, body: form });
  const body: unknown = await res.json();
  jsonAnswers.push({ method, path: url, status: res.status, body });
  return { status: res.status, headers: res.headers, body };
}

/**
 * Issue #29: every request example of the served document, sent to the running service as a reader of /docs
 * would send it (credentials of a bootstrapped account, path parameters and the example's identifiers filled
 * from objects this test creates), gets the status the document gives it: a 2xx for a main example.
 */
describe('OpenAPI request examples, sent to the service', () => {
  it('every request example of GET /openapi.json is answered with one of its documented 2xx statuses', async function () {
    this.timeout(240_000);
    const account = await harness().bootstrap();
    const { db } = harness().deps;
    // A group without the account's issuer, for the example that creates one with the same RFC.
    const groupId = newId('group');
    await db('groups').insert({ id: groupId, account_id: account.accountId, name: `examples-${randomUUID()}` });
    const product = (
      await call('POST', `/v1/qrs/merchants/${account.merchantId}/products`, {
        headers: { Authorization: `Bearer ${account.accessToken}` },
        body: [{ sku: `EX-${randomUUID().slice(0, 8)}`, description: 'Producto', unitPrice: 10, satUnitKey: 'H87', satProductServiceKey: '50202301', satTaxObjectKey: '01' }],
      })
    ).body as { productId: string }[];
    expect(product).to.have.length(1);
    const buyerQr = await newQrLink(account);
    const csfQr = await newQrLink(account);
    const shortCodes = await Promise.all([0, 1].map(async () => ((await postQr(account, qrBody(account.storeUid))).body as { short_code: string }).short_code));
    const invoiceQrs = await Promise.all([newQrLink(account), newQrLink(account)]);
    const credited = await stampedQr(account);
    const cancelled = await stampedQr(account);
    const ppd = await stampedQr(account, { sat_payment_method: 'PPD', sat_payment_form: '99' });

    const document = (await call('GET', '/openapi.json')).body as Document & { paths: Record<string, Record<string, Operation>> };
    const liveOfflineKey = async (): Promise<Fill> => {
      const res = await call('POST', `/v1/qrs/merchants/${account.merchantId}/offline-keys`, { headers: { Authorization: `Bearer ${account.accessToken}` }, body: {} });
      return { path: { merchantId: account.merchantId, keyId: res.body.keyId as string } };
    };
    const fills: Record<string, (ex: Json) => Fill | Promise<Fill>> = {
      'POST /v1/auth/token': (ex) => ({ replace: { [String(ex.client_id)]: account.clientId, [String(ex.client_secret)]: account.clientSecret! } }),
      'POST /v1/qrs/issuers': (ex) => ({ replace: { [String(ex.groupId)]: groupId } }),
      'PUT /v1/qrs/issuers/{issuerId}': (ex) => ({ path: { issuerId: account.issuerId }, replace: { [String(ex.groupId)]: account.groupId } }),
      'PUT /v1/qrs/issuers/{issuerId}/global-periodicity': () => ({ path: { issuerId: account.issuerId } }),
      'POST /v1/qrs/issuers/{issuerId}/global-invoices': () => ({ path: { issuerId: account.issuerId } }),
      'POST /v1/qrs/merchants': (ex) => ({ replace: { [String(ex.issuerId)]: account.issuerId } }),
      'PUT /v1/qrs/merchants/{merchantId}': () => ({ path: { merchantId: account.merchantId } }),
      'POST /v1/qrs/merchants/{merchantId}/logos': () => ({ path: { merchantId: account.merchantId } }),
      'POST /v1/qrs/merchants/{merchantId}/invoice-mode': () => ({ path: { merchantId: account.merchantId } }),
      'PUT /v1/qrs/merchants/{merchantId}/invoice-mode': () => ({ path: { merchantId: account.merchantId } }),
      'POST /v1/qrs/merchants/{merchantId}/products': () => ({ path: { merchantId: account.merchantId } }),
      'POST /v1/qrs/merchants/{merchantId}/offline-keys': () => ({ path: { merchantId: account.merchantId } }),
      'POST /v1/qrs/merchants/{merchantId}/offline-keys/{keyId}/rotate': liveOfflineKey,
      'POST /v1/qrs/merchants/{merchantId}/offline-keys/{keyId}/revoke': liveOfflineKey,
      'PUT /v1/qrs/merchants/{merchantId}/products/{productId}': () => ({ path: { merchantId: account.merchantId, productId: product[0]!.productId } }),
      'POST /v1/qrs': (ex) => ({ replace: { [String(ex.store_uid)]: account.storeUid } }),
      'POST /api/v1/qrs': (ex) => ({ replace: { [String(ex.store)]: account.storeUid } }),
      'POST /v1/qrs/invoices': (ex) => {
        const [first, second] = ex.qr_ids as string[];
        return { replace: { [first!]: invoiceQrs[0]!.qrId, [second!]: invoiceQrs[1]!.qrId } };
      },
      'POST /v1/qrs/invoices/credit-notes': (ex) => ({ replace: { [String((ex.related as Json[])[0]!.uuid)]: credited.uuid } }),
      'POST /v1/qrs/invoices/payment-complements': (ex) => ({ replace: { [String((ex.related as Json[])[0]!.uuid)]: ppd.uuid } }),
      'DELETE /v1/qrs/invoices/{uuid}': () => ({ path: { uuid: cancelled.uuid } }),
      'POST /v1/webhooks/endpoints': () => ({}),
      'POST /v1/public/qrs/tickets': (ex) => {
        const [first, second] = ex.additional_tickets as string[];
        return { replace: { ...linkOf(ex, buyerQr), [first!]: shortCodes[0]!, [second!]: shortCodes[1]! } };
      },
      'POST /v1/public/qrs/preview': (ex) => ({ replace: linkOf(ex, buyerQr) }),
      // The example's review_digest is what the preview of that very request answers: the test previews it first.
      'POST /v1/public/qrs/confirm': async (ex) => {
        const { review_digest: exampleDigest, ...request } = substituted(ex, linkOf(ex, buyerQr)) as Json;
        const reviewed = await call('POST', '/v1/public/qrs/preview', { body: request });
        expect(reviewed.status, JSON.stringify(reviewed.body)).to.equal(200);
        return { replace: { ...linkOf(ex, buyerQr), [String(exampleDigest)]: String(reviewed.body.review_digest) } };
      },
      'POST /v1/public/qrs/email': (ex) => ({ replace: linkOf(ex, credited.link) }),
      'POST /v1/public/qrs/offline-claim': async (ex) => {
        const key = (await call('POST', `/v1/qrs/merchants/${account.merchantId}/offline-keys`, { headers: { Authorization: `Bearer ${account.accessToken}` }, body: {} }))
          .body as {
          offlineKey: string;
          linkBaseUrl: string;
        };
        const ticket = new URL(offlineTicket(key.offlineKey, key.linkBaseUrl, { saleId: `T-${randomUUID()}`, amount: String(ex.a) }).link).searchParams;
        return { replace: Object.fromEntries(['k', 'w', 's', 'm'].map((p) => [String(ex[p]), ticket.get(p)!])) };
      },
      'POST /v1/public/qrs/invoice-files': (ex) => ({ replace: linkOf(ex, credited.link) }),
      'POST /v1/public/qrs/csf': () => ({ query: csfQr }),
    };
    const png = await sharp({ create: { width: 120, height: 60, channels: 3, background: '#1a6' } })
      .png()
      .toBuffer();
    const testCsd = new URL('../../data/sat/test-csd/', import.meta.url);
    const files: Record<string, Buffer> = {
      'EKU9003173C9.cer': readFileSync(new URL('EKU9003173C9.cer', testCsd)),
      'EKU9003173C9.key': readFileSync(new URL('EKU9003173C9.key', testCsd)),
      'logo-factura.png': png,
      'logo-app.png': png,
      'CSF_URE180429TM6.pdf': await csfPdf(XOCHILT),
    };

    const sent: string[] = [];
    const wrong: string[] = [];
    // In the document's order; the buyer's confirm comes after its preview, a webhook endpoint's deletion is not a body.
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
          if (media.example === undefined) continue;
          const key = `${method.toUpperCase()} ${path}`;
          const fillOf = fills[key] ?? ((): Fill | Promise<Fill> => ({}));
          const fill: Fill = await fillOf(media.example as Json);
          const url =
            path.replace(/\{(\w+)\}/g, (_, name: string) => fill.path?.[name] ?? `{${name}}`) +
            (fill.query ? `?${new URLSearchParams({ v: fill.query.v, t: fill.query.t, m: fill.query.m }).toString()}` : '');
          const headers: Record<string, string> = {};
          const scheme = Object.keys(op.security?.[0] ?? {})[0];
          if (scheme === 'ApiKey') headers['X-API-Key'] = account.apiKey;
          if (scheme === 'Bearer') headers.Authorization = `Bearer ${account.accessToken}`;
          for (const p of op.parameters ?? []) {
            if (p.in !== 'header' || !p.required) continue;
            headers[p.name] = p.schema?.format === 'uuid' ? randomUUID() : String(p.example);
          }
          const body = substituted(media.example, fill.replace ?? {}) as Json;
          let res: Answer;
          if (type === 'multipart/form-data') {
            const name = String(media.schema?.$ref).replace('#/components/schemas/', '');
            res = await sendForm(method.toUpperCase(), url, headers, body, document.components.schemas[name]!, files);
          } else if (type === 'application/x-www-form-urlencoded') {
            headers['content-type'] = type;
            res = await call(method.toUpperCase(), url, { headers, rawBody: new URLSearchParams(body as Record<string, string>).toString() });
          } else {
            res = await call(method.toUpperCase(), url, { headers, body });
          }
          sent.push(`${key} ${type}`);
          const documented2xx = Object.keys(op.responses).filter((s) => /^2/.test(s));
          if (!documented2xx.includes(String(res.status))) wrong.push(`${key} ${type}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
        }
      }
    }
    expect(wrong).to.deep.equal([]);
    // Every body a reader of /docs can copy, the uploads included.
    expect(sent).to.include.members([
      'POST /v1/qrs application/json',
      'POST /api/v1/qrs application/json',
      'POST /v1/auth/token application/x-www-form-urlencoded',
      'PUT /v1/qrs/merchants/{merchantId}/invoice-mode multipart/form-data',
      'POST /v1/public/qrs/csf multipart/form-data',
      'POST /v1/qrs/invoices/payment-complements application/json',
    ]);
    expect(sent.length).to.be.above(25);
  });
});
