import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { globalPeriod } from '../../shared/global-invoice/global-period.js';
import { jobId } from '../../shared/platform/jobs.js';
import { confirmReviewed, linkQuery, newQrLink, queueEvents, stamped, type QrLink } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { runJob } from '../helpers/run-job.js';
import { call, expectError } from '../helpers/http.js';
import { cadenaOriginal } from '../../shared/domain/cfdi/cadena-original.js';
import { parseXml } from '../../shared/domain/cfdi/parse-xml.js';
import { satCadena, xsdInvalid } from '../helpers/sat-tools.js';

describe('global invoice for sales nobody invoiced', function () {
  this.timeout(90_000);
  let account: BootstrapResult;
  let issuerId: string;
  let stampEvents: QueueEvents;

  before(async () => {
    account = await harness().bootstrap();
    issuerId = (await db()('merchants').where({ account_id: account.accountId }).first('issuer_id')).issuer_id;
    stampEvents = await queueEvents('stamp');
  });
  after(() => stampEvents.close());

  const db = () => harness().deps.db;
  const asAccount = () => ({ Authorization: `Bearer ${account.accessToken}` });
  const report = (body: Record<string, unknown> = {}) => call('POST', `/v1/qrs/issuers/${issuerId}/global-invoices`, { headers: asAccount(), body });

  /** As if the sale had been made in a month that closed at least 9 days ago, and its QR had expired. */
  async function inClosedPeriod(link: QrLink): Promise<void> {
    const period = globalPeriod(new Date(Date.now() - 40 * 86_400_000), '04');
    await db()('qr_transactions')
      .where({ id: link.qrId })
      .update({
        global_periodicity: '04',
        global_period_end: period.end,
        expires_at: new Date(period.end.getTime() - 60_000),
      });
  }

  async function stampedGlobal(id: string): Promise<string> {
    const job = await harness().producers.queue('stamp').getJob(jobId.stampInvoice(id));
    await job!.waitUntilFinished(stampEvents, 60_000);
    const row = await db()('invoices').where({ id }).first('uuid', 'status');
    expect(row.status).to.equal('ACTIVE');
    const xml = await call('GET', `/v1/qrs/invoices/uuid/${row.uuid}/xml`, { headers: asAccount() });
    return Buffer.from(xml.body.content, 'base64').toString('utf8');
  }

  it("caps a new QR's expiry at its period's close and says so", async () => {
    const set = await call('PUT', `/v1/qrs/issuers/${issuerId}/global-periodicity`, { headers: asAccount(), body: { periodicity: '01' } });
    expect(set.status).to.equal(200);
    expect(set.body.globalPeriodicity).to.equal('01');
    try {
      const link = await newQrLink(account);
      const qr = (await call('GET', `/v1/qrs/${link.qrId}`, { headers: { 'X-API-Key': account.apiKey } })).body;
      expect(qr.global_period.periodicity).to.equal('01');
      expect(qr.expires_at).to.equal(qr.global_period.closes_at);
      expect(new Date(qr.expires_at_requested).getTime()).to.be.greaterThan(new Date(qr.expires_at).getTime());
      expect(new Date(qr.expires_at).getTime() - Date.now()).to.be.at.most(86_400_000);
    } finally {
      await call('PUT', `/v1/qrs/issuers/${issuerId}/global-periodicity`, { headers: asAccount(), body: { periodicity: '04' } });
    }
    expectError(await call('PUT', `/v1/qrs/issuers/${issuerId}/global-periodicity`, { headers: asAccount(), body: { periodicity: '05' } }), 400, 'validation_failed');
  });

  it('reports unclaimed sales once, one document per payment form, to público en general; they can no longer be self-invoiced', async () => {
    const card = [await newQrLink(account), await newQrLink(account)];
    const cash = await newQrLink(account, { sat_payment_form: '01' });
    const claimed = await newQrLink(account);
    for (const link of [...card, cash, claimed]) await inClosedPeriod(link);
    // A sale invoiced to its buyer is not reported.
    await db()('qr_transactions')
      .where({ id: claimed.qrId })
      .update({ expires_at: db().raw(`now() + interval '1 hour'`) });
    await confirmReviewed(claimed);
    await stamped(stampEvents, claimed.qrId);

    const res = await report();
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.items.map((g: { sat_payment_form: string; tickets: number; periodicity: string }) => [g.sat_payment_form, g.tickets, g.periodicity])).to.deep.equal([
      ['01', 1, '04'],
      ['04', 2, '04'],
    ]);

    const xml = await stampedGlobal(res.body.items[1].id);
    expect(xml).to.contain('Rfc="XAXX010101000"').and.contain('Nombre="PUBLICO EN GENERAL"').and.contain('RegimenFiscalReceptor="616"').and.contain('UsoCFDI="S01"');
    expect(xml).to.match(/<cfdi:InformacionGlobal Periodicidad="04" Meses="\d{2}" Año="\d{4}"\/>/);
    expect(xml.match(/ClaveProdServ="01010101"/g)).to.have.length(2);
    const saleIds = await db()('qr_transactions')
      .whereIn(
        'id',
        card.map((l) => l.qrId),
      )
      .pluck('sale_id');
    for (const saleId of saleIds) expect(xml).to.contain(`NoIdentificacion="${saleId}"`);
    // The merchant's books (issue #32): the global invoice's sales by its UUID; its export row counts them.
    const uuid = (await db()('invoices').where({ id: res.body.items[1].id }).first('uuid')).uuid as string;
    const reported = await call('GET', `/v1/qrs?global_invoice_uuid=${uuid.toLowerCase()}`, { headers: asAccount() });
    expect(reported.status, JSON.stringify(reported.body)).to.equal(200);
    expect(reported.body.content.map((q: { sale_id: string }) => q.sale_id)).to.have.members(saleIds);
    const exported = await fetch(`${harness().baseUrl}/v1/qrs/invoices/export?format=jsonl&uuid=${uuid}`, { headers: asAccount() });
    const rows = (await exported.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; global_tickets: string; sale_ids: string[] });
    expect(rows.map((r) => [r.kind, r.global_tickets, r.sale_ids])).to.deep.equal([['global_invoice', '2', []]]);
    const dir = mkdtempSync(join(tmpdir(), 'global-'));
    writeFileSync(join(dir, 'g.xml'), xml);
    expect(await xsdInvalid([join(dir, 'g.xml')])).to.equal('');
    expect(cadenaOriginal(parseXml(xml))).to.equal(await satCadena(join(dir, 'g.xml')));

    const qr = (await call('GET', `/v1/qrs/${card[0]!.qrId}`, { headers: { 'X-API-Key': account.apiKey } })).body;
    expect(qr.status).to.equal('EXPIRED');
    expect(qr.global_invoice).to.include({ status: 'ACTIVE' });
    expect(qr.global_invoice.uuid).to.match(/^[0-9A-F-]{36}$/);
    expectError(await call('GET', `/v1/public/qrs/resolve?${linkQuery(card[0]!)}`), 410, 'qr_globally_invoiced');
    const page = await fetch(`${harness().baseUrl}/q?${linkQuery(card[0]!)}`);
    expect(page.status).to.equal(410);
    expect(await page.text()).to.contain('factura global');

    // Nothing is reported twice: not by the API, not by the scheduled job (which sees every account's sales).
    expect((await report()).body).to.deep.equal({ items: [] });
    const events = await queueEvents('global-invoice');
    await runJob('issue-global-invoices', {}, events);
    await events.close();
    expect((await db()('qr_transactions').where({ id: claimed.qrId }).first('global_invoice_id')).global_invoice_id).to.equal(null);
    const listed = await call('GET', `/v1/qrs/issuers/${issuerId}/global-invoices`, { headers: asAccount() });
    expect(listed.body.totalElements).to.equal(2);
  });

  it('the scheduled job reports a closed period by itself', async () => {
    const link = await newQrLink(account);
    await inClosedPeriod(link);
    const events = await queueEvents('global-invoice');
    expect((await runJob('issue-global-invoices', {}, events)).invoices).to.be.at.least(1);
    await events.close();
    expect((await db()('qr_transactions').where({ id: link.qrId }).first('global_invoice_id')).global_invoice_id).to.be.a('string');
  });

  it('refuses to report an open period, and motive 04 cancels only a global invoice', async () => {
    const today = new Date(Date.now() - 6 * 3600_000).toISOString().slice(0, 10);
    expectError(await report({ date: today }), 409, 'period_not_closed');
    expectError(await report({ date: 'tomorrow' }), 400, 'validation_failed');

    const link = await newQrLink(account);
    await confirmReviewed(link);
    await stamped(stampEvents, link.qrId);
    const nominative = (await db()('invoices').where({ transaction_id: link.qrId }).first('uuid')).uuid;
    expectError(await call('DELETE', `/v1/qrs/invoices/${nominative}`, { headers: asAccount(), body: { motive: '04' } }), 422, 'motive_not_applicable');

    const unclaimed = await newQrLink(account);
    await inClosedPeriod(unclaimed);
    const created = await report();
    const global = await db()('invoices').where({ id: created.body.items[0].id }).first('id');
    await stampedGlobal(global.id);
    const uuid = (await db()('invoices').where({ id: global.id }).first('uuid')).uuid;
    const cancelled = await call('DELETE', `/v1/qrs/invoices/${uuid}`, { headers: asAccount(), body: { motive: '04' } });
    expect(cancelled.status, JSON.stringify(cancelled.body)).to.equal(202);
    expect(cancelled.body).to.include({ motive: '04', acceptance: 'NOT_REQUIRED', acceptance_reason: 'amount_up_to_1000' });
  });
});
