import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { globalPeriod } from '../../shared/global-invoice/global-period.js';
import { jobId } from '../../shared/platform/jobs.js';
import { attentionKind } from '../../shared/status/needs-attention.js';
import { confirmReviewed, linkQuery, newQrLink, queueEvents, stamped, type QrLink } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { runJob } from '../helpers/run-job.js';
import { call, expectError } from '../helpers/http.js';
import { cadenaOriginal } from '../../shared/domain/cfdi/cadena-original.js';
import { parseXml } from '../../shared/domain/cfdi/parse-xml.js';
import { satCadena, xsdInvalid } from '../helpers/sat-tools.js';
import { recordGlobalInvoices } from '../../shared/global-invoice/record-global-invoices.js';
import { enqueueStamp } from '../../shared/invoices/enqueue-stamp.js';
import { localDateTime } from '../../shared/domain/time-zone.js';

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

  /** As if the sale had been made in a month that closed at least 9 days ago (or `daysAgo`), and its QR had expired. */
  async function inClosedPeriod(link: QrLink, daysAgo = 40): Promise<void> {
    const period = globalPeriod(new Date(Date.now() - daysAgo * 86_400_000), '04');
    await db()('qr_transactions')
      .where({ id: link.qrId })
      .update({
        global_periodicity: '04',
        global_period_end: period.end,
        expires_at: new Date(period.end.getTime() - 60_000),
      });
  }

  /** The stamp job's outcome, once it has one. */
  async function stampOutcome(id: string): Promise<{ outcome: string }> {
    const job = await harness().producers.queue('stamp').getJob(jobId.stampInvoice(id));
    return (await job!.waitUntilFinished(stampEvents, 60_000)) as { outcome: string };
  }

  const globalInvoiceOf = async (link: QrLink) => (await db()('qr_transactions').where({ id: link.qrId }).first('global_invoice_id')).global_invoice_id as string | null;

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

  describe('a global invoice that cannot be built or is refused never blocks its period (issue #38)', () => {
    /** A sale_id stored before the door refused it: a barcode scanner's GS (U+001D) between two GS1 fields. */
    const scannedSaleId = () => `0107501031311309\u001D10LOTE-${Date.now()}`;
    const today = localDateTime(new Date(), 'America/Mexico_City').slice(0, 10);
    const summary = async () => {
      const res = await call('GET', `/v1/qrs/invoices/summary?from=${today}&to=${today}&merchant_id=${account.merchantId}`, { headers: asAccount() });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body.items[0] as {
        sales: { currency: string; global_invoice: { count: number }; expired_unclaimed: { count: number } }[];
        differences: { code: string; sale_id?: string; invoice_id?: string; message: string }[];
      };
    };
    const mxn = (s: Awaited<ReturnType<typeof summary>>) => s.sales.find((x) => x.currency === 'MXN')!;
    const named = (s: Awaited<ReturnType<typeof summary>>, code: string) => s.differences.filter((d) => d.code === code);

    it('an old sale whose sale_id holds U+001D is left out and named; the period is stamped for the other sales', async () => {
      const good = await newQrLink(account);
      const bad = await newQrLink(account);
      for (const link of [good, bad]) await inClosedPeriod(link, 100);
      const badSaleId = scannedSaleId();
      await db()('qr_transactions').where({ id: bad.qrId }).update({ sale_id: badSaleId });

      const res = await report();
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      const globalId = await globalInvoiceOf(good);
      expect(globalId).to.be.a('string');
      const xml = await stampedGlobal(globalId!);
      expect(xml).to.contain((await db()('qr_transactions').where({ id: good.qrId }).first('sale_id')).sale_id);
      expect(xml).to.not.contain('10LOTE');
      const left = await db()('qr_transactions').where({ id: bad.qrId }).first('global_invoice_id', 'unreportable', 'status');
      expect(left.global_invoice_id).to.equal(null);
      expect(left.status).to.equal('EXPIRED');
      expect(left.unreportable).to.contain('U+001D (INFORMATION SEPARATOR THREE / GS)');
      // Named in the books, not reported again by every run.
      const named_ = named(await summary(), 'sale_unreportable').filter((d) => d.sale_id === badSaleId);
      expect(named_).to.have.length(1);
      expect(named_[0]!.message).to.contain('U+001D (INFORMATION SEPARATOR THREE / GS)');
      expect((await report()).body.items.filter((g: { id: string }) => g.id !== globalId)).to.deep.equal([]);
      expect(await globalInvoiceOf(bad)).to.equal(null);
    });

    it('one recorded before the fix with such a sale is refused at once as invoice_unbuildable, and releases its sales to the next run', async () => {
      const good = await newQrLink(account);
      const bad = await newQrLink(account);
      for (const link of [good, bad]) await inClosedPeriod(link, 130);
      const period = (await db()('qr_transactions').where({ id: good.qrId }).first('global_period_end')).global_period_end as Date;
      // As the service recorded it before this change: the sale_id in the stored document of a global invoice.
      const [recorded] = await recordGlobalInvoices(db(), account.merchantId, period, '04');
      const oldSaleId = (await db()('qr_transactions').where({ id: bad.qrId }).first('sale_id')).sale_id as string;
      const badSaleId = scannedSaleId();
      await db()('qr_transactions').where({ id: bad.qrId }).update({ sale_id: badSaleId });
      await db()('invoices')
        .where({ id: recorded!.id })
        .update({ document: db().raw('replace(document::text, ?, ?)::jsonb', [`"${oldSaleId}"`, JSON.stringify(badSaleId)]) });
      expect(await globalInvoiceOf(bad)).to.equal(recorded!.id);

      await enqueueStamp(harness().producers, recorded!.id);
      const job = await harness().producers.queue('stamp').getJob(jobId.stampInvoice(recorded!.id));
      expect(await job!.waitUntilFinished(stampEvents, 60_000)).to.include({ outcome: 'refused' });
      expect((await harness().producers.queue('stamp').getJob(jobId.stampInvoice(recorded!.id)))!.attemptsMade, 'not retried').to.equal(1);
      const refused = await db()('invoices').where({ id: recorded!.id }).first('status', 'refusal');
      expect(refused.status).to.equal('REFUSED');
      expect(refused.refusal.code).to.equal('invoice_unbuildable');
      expect(refused.refusal.message).to.contain('Concepto@NoIdentificacion').and.contain('U+001D (INFORMATION SEPARATOR THREE / GS)');
      expect(refused.refusal.details).to.deep.equal([
        {
          field: 'cfdi:Concepto@NoIdentificacion',
          code: 'unwritable_character',
          message: `cfdi:Concepto@NoIdentificacion "${badSaleId.replace('\u001D', '<U+001D>')}" holds U+001D (INFORMATION SEPARATOR THREE / GS).`,
          source: 'service',
        },
      ]);
      expect(await globalInvoiceOf(good)).to.equal(null);
      expect(await globalInvoiceOf(bad)).to.equal(null);

      await report();
      const next = await globalInvoiceOf(good);
      expect(next).to.be.a('string').and.not.equal(recorded!.id);
      await stampedGlobal(next!);
      expect(await globalInvoiceOf(bad)).to.equal(null);
      expect((await db()('qr_transactions').where({ id: bad.qrId }).first('unreportable')).unreportable).to.contain('U+001D');
    });

    it('one the PAC refuses releases its sales: the next run reports them, and only one stamped global invoice covers each', async () => {
      const link = await newQrLink(account);
      await inClosedPeriod(link, 160);
      harness().pac.script({ kind: 'refuse', code: 'CFDI40999', message: 'Rechazado para la prueba.' });
      const first = await report();
      expect(first.status, JSON.stringify(first.body)).to.equal(201);
      const refusedId = first.body.items.find((g: { id: string }) => g.id)!.id as string;
      expect(await stampOutcome(refusedId)).to.include({ outcome: 'refused' });
      expect((await db()('invoices').where({ id: refusedId }).first('status')).status).to.equal('REFUSED');
      expect(await globalInvoiceOf(link), 'released').to.equal(null);
      const qr = (await call('GET', `/v1/qrs/${link.qrId}`, { headers: { 'X-API-Key': account.apiKey } })).body;
      expect(qr.global_invoice).to.equal(null);

      const again = await report();
      expect(again.status, JSON.stringify(again.body)).to.equal(201);
      const reportedId = await globalInvoiceOf(link);
      expect(reportedId).to.be.a('string').and.not.equal(refusedId);
      await stampedGlobal(reportedId!);
      expect(again.body.items.find((g: { id: string }) => g.id === reportedId)).to.include({ part: 2 });
      const stamped_ = await db()('global_invoices as g')
        .join('invoices as i', 'i.id', 'g.invoice_id')
        .where({ 'g.merchant_id': account.merchantId, 'g.period_end': (await db()('qr_transactions').where({ id: link.qrId }).first('global_period_end')).global_period_end })
        .whereNot('i.status', 'REFUSED')
        .pluck('i.id');
      expect(stamped_).to.deep.equal([reportedId]);
    });

    it('the scheduled job stops reporting a period after three refusals; the merchant reports it when the cause is put right', async () => {
      const link = await newQrLink(account);
      await inClosedPeriod(link, 190);
      const events = await queueEvents('global-invoice');
      try {
        for (let n = 1; n <= 3; n++) {
          harness().pac.script({ kind: 'refuse', code: 'CFDI40999', message: 'Rechazado para la prueba.' });
          await runJob('issue-global-invoices', {}, events);
          const id = await globalInvoiceOf(link);
          expect(id, `run ${n}`).to.be.a('string');
          expect(await stampOutcome(id!)).to.include({ outcome: 'refused' });
        }
        await runJob('issue-global-invoices', {}, events);
        expect(await globalInvoiceOf(link), 'not a fourth time by itself').to.equal(null);
      } finally {
        await events.close();
      }
      // Held back, it needs attention: counted, listed with the last refusal, never given up, retried by an operator.
      const kind = attentionKind('global-period')!;
      const held = (await kind.list(harness().deps.db, 100)).filter((e) => e.merchantId === account.merchantId);
      expect(held).to.have.length(1);
      expect(held[0]!.cause).to.include('refused 3 times').and.include('CFDI40999');
      const deps = { db: harness().deps.db, producers: harness().producers };
      expect(await kind.giveUp(deps, held[0]!.id)).to.have.property('refused');
      expect(await kind.retry(deps, held[0]!.id)).to.equal(true);
      await stampedGlobal((await globalInvoiceOf(link))!);
      expect((await kind.list(harness().deps.db, 100)).filter((e) => e.merchantId === account.merchantId)).to.deep.equal([]);
    });

    it('the period summary counts a sale as reported only once its global invoice is stamped, and names it until then', async () => {
      const link = await newQrLink(account);
      await inClosedPeriod(link, 220);
      const saleId = (await db()('qr_transactions').where({ id: link.qrId }).first('sale_id')).sale_id as string;
      const period = (await db()('qr_transactions').where({ id: link.qrId }).first('global_period_end')).global_period_end as Date;
      // Global invoices of the other tests still being stamped would move the figures compared below.
      for (const { id } of await db()('invoices').where({ merchant_id: account.merchantId, status: 'STAMPING' }).select('id')) {
        const job = await harness()
          .producers.queue('stamp')
          .getJob(jobId.stampInvoice(id as string));
        await job?.waitUntilFinished(stampEvents, 60_000);
      }
      const before = await summary();
      expect(named(before, 'sale_not_reported').map((d) => d.sale_id)).to.include(saleId);

      const [recorded] = await recordGlobalInvoices(db(), account.merchantId, period, '04');
      const stamping = await summary();
      expect(mxn(stamping).global_invoice.count, 'not reported while STAMPING').to.equal(mxn(before).global_invoice.count);
      const notStamped = named(stamping, 'global_invoice_not_stamped').filter((d) => d.sale_id === saleId);
      expect(notStamped).to.have.length(1);
      expect(notStamped[0]).to.include({ invoice_id: recorded!.id });
      expect(notStamped[0]!.message).to.contain('STAMPING');

      await enqueueStamp(harness().producers, recorded!.id);
      await stampedGlobal(recorded!.id);
      const after = await summary();
      expect(mxn(after).global_invoice.count).to.equal(mxn(stamping).global_invoice.count + 1);
      expect(mxn(after).expired_unclaimed.count).to.equal(mxn(stamping).expired_unclaimed.count - 1);
      expect(after.differences.filter((d) => d.sale_id === saleId)).to.deep.equal([]);
    });
  });
});
