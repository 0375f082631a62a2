import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { ApiError, AutofacturaClient, verifyWebhook, type QrCreateRequest } from '../../clients/typescript/src/index.js';
import { CLIENT_TYPES_FILE, clientTypes } from '../../scripts/generate-client-types.js';
import { newWebhookSecret, webhookHeaders } from '../../shared/webhooks/sign-webhook.js';
import { harness } from '../helpers/harness.js';
import { qrBody } from '../helpers/qr-body.js';

describe('the TypeScript client (clients/typescript), against the live test stack (issue #21)', () => {
  let account: BootstrapResult;
  before(async () => {
    account = await harness().bootstrap();
  });
  const client = (baseUrl = harness().baseUrl) => new AutofacturaClient({ baseUrl, apiKey: account.apiKey, maxRetryDelayMs: 50 });

  it('its types are what `npm run client:types` generates from the served OpenAPI document', async () => {
    expect(readFileSync(CLIENT_TYPES_FILE, 'utf8'), 'run npm run client:types').to.equal(await clientTypes());
  });

  it('creates a QR and reads it back, as a POS would', async () => {
    const qr = await client().createQr(qrBody(account.storeUid) as QrCreateRequest);
    expect(qr.status).to.equal('PENDING');
    expect(qr.qr_content).to.match(/^https:\/\/factura\.example\.test\/q\?v=1&t=/);
    const again = await client().getQr(qr.qr_id);
    expect(again.qr_id).to.equal(qr.qr_id);
    expect(again.invoice).to.equal(null);
  });

  it("lists the merchant's QRs page by page and streams the export (issue #32)", async () => {
    const created = [await client().createQr(qrBody(account.storeUid) as QrCreateRequest), await client().createQr(qrBody(account.storeUid) as QrCreateRequest)];
    const first = await client().listQrs({ size: 1 });
    const second = await client().listQrs({ size: 1, cursor: first.next_cursor! });
    expect([...first.content, ...second.content].map((q) => q.qr_id).slice(0, 2)).to.deep.equal(created.map((q) => q.qr_id).reverse());
    expect(first.content[0]!.amount).to.equal('302.32');
    const invoices = [];
    for await (const invoice of client().eachInvoice({ size: 1 })) invoices.push(invoice);
    expect(invoices).to.deep.equal([]);
    const csv = await new Response(await client().exportInvoices({ format: 'csv' })).text();
    expect(csv.split('\r\n')[0]).to.match(/^issued_at,uuid,series,folio,/);
    const refused = await client()
      .exportInvoices({ format: 'xlsx' as 'csv' })
      .catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(ApiError).and.include({ status: 400, code: 'validation_failed' });

    // The period added up: the three sales of these tests, pending, nothing stamped, nothing that does not add up.
    const day = (msAgo: number) => new Date(Date.now() - msAgo).toISOString().slice(0, 10);
    const summary = await client().summarizeInvoices({ from: day(30 * 86_400_000), to: day(0), time_zone: 'UTC' });
    expect(summary.items.map((m) => m.merchant_id)).to.deep.equal([account.merchantId]);
    expect(summary.items[0]!.sales[0]).to.deep.include({ currency: 'MXN', recorded: { count: 3, total: '906.96' }, open: { count: 3, total: '906.96' } });
    expect(summary.items[0]!.differences).to.deep.equal([]);
    const badPeriod = await client()
      .summarizeInvoices({ from: '2026-03-02', to: '2026-03-01' })
      .catch((e: unknown) => e);
    expect(badPeriod).to.be.instanceOf(ApiError).and.include({ status: 400, code: 'validation_failed' });
  });

  it('asks for the ZIP of a period and follows it, the same key finding the same export (issue #32)', async () => {
    const key = crypto.randomUUID();
    const asked = await client().createInvoiceExport({ created_from: '2026-01-01', include_pdf: false }, key);
    expect(asked).to.include({ status: 'PENDING', download_url: null });
    expect((await client().createInvoiceExport({ created_from: '2026-01-01', include_pdf: false }, key)).export_id).to.equal(asked.export_id);
    expect((await client().getInvoiceExport(asked.export_id)).export_id).to.equal(asked.export_id);
    const refused = await client()
      .createInvoiceExport({ cfdi_type: 'X' as 'I' })
      .catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(ApiError).and.include({ status: 400, code: 'validation_failed' });
  });

  it('tells a replay from a new QR (Idempotent-Replayed): a retry with the same key is the same QR, replayed', async () => {
    const key = crypto.randomUUID();
    const sale = qrBody(account.storeUid) as QrCreateRequest;
    const first = await client().createQr(sale, key);
    const retry = await client().createQr(sale, key);
    expect(first.replayed).to.equal(false);
    expect(retry).to.deep.include({ qr_id: first.qr_id, replayed: true });
  });

  it('retries a 503 after Retry-After with the same idempotency key: one QR, not two', async () => {
    const keys: string[] = [];
    let first = true;
    // A proxy in front of the stack that sheds the first attempt, as a loaded service would.
    const proxy: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        keys.push(String(req.headers['idempotency-key']));
        if (first) {
          first = false;
          res
            .writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' })
            .end(JSON.stringify({ error: { code: 'service_unavailable', message: 'busy', details: [], request_id: 'r' } }));
          return;
        }
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length')) as Record<string, string>;
        void fetch(`${harness().baseUrl}${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) }).then(async (upstream) => {
          res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await upstream.arrayBuffer()));
        });
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = proxy.address() as { port: number };
      const qr = await client(`http://127.0.0.1:${port}`).createQr(qrBody(account.storeUid) as QrCreateRequest);
      expect(qr.status).to.equal('PENDING');
      expect(keys).to.have.length(2);
      expect(keys[0]).to.equal(keys[1]);
    } finally {
      proxy.close();
    }
  });

  it("throws ApiError with the service's code, details and request id", async () => {
    const bad = { ...qrBody(account.storeUid), subtotal: 1 } as QrCreateRequest;
    const error = await client()
      .createQr(bad)
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(error).to.be.instanceOf(ApiError);
    const api = error as ApiError;
    expect(api.status).to.equal(422);
    expect(api.code).to.equal('rule_violation');
    expect(api.details.map((d) => d.field)).to.include('subtotal');
    expect(api.requestId).to.be.a('string').that.is.not.empty;
  });

  it('verifies a webhook delivery the way the service signs it, and refuses a tampered one', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ type: 'invoice.stamped', data: { qr_id: 'tra_x' } });
    const headers = webhookHeaders(secret, 'msg_1', body);
    expect(verifyWebhook(secret, headers, body)).to.equal(true);
    expect(verifyWebhook(secret, headers, body.replace('tra_x', 'tra_y'))).to.equal(false);
    expect(verifyWebhook(newWebhookSecret(), headers, body)).to.equal(false);
  });
});
