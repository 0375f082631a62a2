import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { parseXml } from '../../shared/domain/cfdi/parse-xml.js';
import { attribute, child, children } from '../../shared/domain/cfdi/xml-element.js';
import { BUYER, confirmReviewed, linkQuery, newQrLink, queueEvents, stamped, type QrLink } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';
import { sampleValue } from '../helpers/metrics-text.js';
import { readStatusFigures } from '../../shared/status/status-figures.js';
import type { QrCreateRequest } from '../../shared/qr/qr-request.js';

/** A one-concept sale paid in cash: 100 + 16 % IVA. */
const WATER: Partial<QrCreateRequest> = {
  amount: 116,
  subtotal: 100,
  sat_payment_form: '01',
  operation_data: [
    {
      description: 'Agua 20 L',
      amount: 100,
      quantity: 2,
      unit_price: 50,
      sat_unit_key: 'H87',
      sat_product_service_key: '50202301',
      sat_tax_object_key: '02',
      taxes: [{ type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000', taxable_base: 100, amount: 16 }],
    },
  ],
};

describe('several tickets in one invoice (buyer page API and merchant API)', function () {
  this.timeout(90_000);
  let account: BootstrapResult;
  let events: QueueEvents;
  before(async () => {
    account = await harness().bootstrap();
    events = await queueEvents('stamp');
  });
  after(() => events.close());

  const db = () => harness().deps.db;
  const detail = async (qrId: string, key = account.apiKey) => (await call('GET', `/v1/qrs/${qrId}`, { headers: { 'X-API-Key': key } })).body;
  const shortCode = async (qrId: string) => (await detail(qrId)).short_code as string;
  const linkOf = (link: QrLink) => `${harness().deps.config.publicBaseUrl}/q?${new URLSearchParams({ v: link.v, t: link.t, m: link.m })}`;
  const buyer = (path: string, link: QrLink, body: Record<string, unknown>) => call('POST', `/v1/public/qrs/${path}`, { body: { v: link.v, t: link.t, m: link.m, ...body } });
  const invoiceRows = () => db()('invoices').where({ merchant_id: account.merchantId });
  const codesOf = (res: { body: { error: { details: { field: string; code: string }[] } } }) => res.body.error.details.map((d) => `${d.field}:${d.code}`);
  const stampedXml = async (qrId: string) => {
    const invoice = await db()('invoices').where({ transaction_id: qrId, status: 'ACTIVE' }).first('xml_file_key');
    return parseXml((await harness().deps.files.get(invoice.xml_file_key as string))!.data.toString('utf8'));
  };

  it('counts the tickets added to an invoice as scanned alike on /metrics and on the status page (issue #29)', async () => {
    const scannedOnMetrics = async () => {
      const res = await call('GET', '/metrics', { headers: { Authorization: `Bearer ${harness().deps.config.metricsToken}` } });
      return sampleValue((res.body as Buffer).toString(), 'autofactura_qr_transitions_total', { status: 'SCANNED' });
    };
    const scannedOnStatusPage = async () => (await readStatusFigures(db())).hours.reduce((sum, h) => sum + h.scanned, 0);
    const before = { metrics: await scannedOnMetrics(), page: await scannedOnStatusPage() };
    const first = await newQrLink(account);
    const [second, third] = [await newQrLink(account, WATER), await newQrLink(account, WATER)];
    expect((await call('GET', `/v1/public/qrs/resolve?${linkQuery(first)}`)).status).to.equal(200); // the buyer opens the first ticket: SCANNED
    const res = await confirmReviewed(first, BUYER, { additional_tickets: [await shortCode(second.qrId), linkOf(third)] });
    expect(res.status).to.equal(202);
    expect(await stamped(events, first.qrId)).to.include({ outcome: 'stamped' });
    const after = { metrics: await scannedOnMetrics(), page: await scannedOnStatusPage() };
    expect({ metrics: after.metrics - before.metrics, page: after.page - before.page }).to.deep.equal({ metrics: 3, page: 3 });
  });

  it('a buyer adds tickets by short code and by link, reviews every ticket and the totals, and one confirmation stamps one CFDI for all of them', async () => {
    const first = await newQrLink(account);
    const second = await newQrLink(account, WATER);
    const third = await newQrLink(account, WATER);
    const further = [await shortCode(second.qrId), linkOf(third)];

    const review = await buyer('tickets', first, { additional_tickets: further });
    expect(review.status).to.equal(200);
    expect(review.body.tickets.map((t: { amount: number }) => t.amount)).to.deep.equal([302.32, 116, 116]);
    expect(review.body.tickets[1]).to.include({ short_code: further[0], currency: 'MXN', sat_payment_form: '01' });
    expect(review.body.totals).to.deep.equal({ subtotal: 462, discount: 0, transferred_taxes: 72.32, withheld_taxes: 0, total: 534.32 });

    const preview = await buyer('preview', first, { customer: BUYER, additional_tickets: further });
    expect(preview.status).to.equal(200);
    expect(preview.body.tickets).to.have.length(3);
    expect(preview.body.totals.total).to.equal(534.32);

    const res = await confirmReviewed(first, {}, { additional_tickets: further });
    expect(res.status).to.equal(202);
    expect(await stamped(events, first.qrId)).to.include({ outcome: 'stamped' });

    const views = await Promise.all([first, second, third].map((l) => detail(l.qrId)));
    expect(views.map((v) => v.status)).to.deep.equal(['INVOICED', 'INVOICED', 'INVOICED']);
    expect(new Set(views.map((v) => v.invoice.uuid)).size).to.equal(1);
    expect(views[2].invoice).to.include({ total: 534.32 });

    const cfdi = await stampedXml(first.qrId);
    expect(attribute(cfdi, 'Total')).to.equal('534.32');
    // FormaPago: the one the greatest amount was paid with (the first ticket's card, 04).
    expect(attribute(cfdi, 'FormaPago')).to.equal('04');
    const concepts = children(child(cfdi, 'cfdi:Conceptos')!, 'cfdi:Concepto');
    expect(concepts).to.have.length(5);
    // The second ticket's status page shows the invoice it is in.
    const status = await call('GET', `/v1/public/qrs/status?${new URLSearchParams({ v: second.v, t: second.t, m: second.m })}`);
    expect(status.body.confirmation.invoice.uuid).to.equal(views[0].invoice.uuid);
  });

  it('refuses, ticket by ticket, what cannot join: invoiced, expired, cancelled, another currency, another payment method, another issuer, a repeat, a bad code; nothing is recorded', async () => {
    const first = await newQrLink(account);
    const invoiced = await newQrLink(account, WATER);
    const expired = await newQrLink(account, WATER);
    const cancelled = await newQrLink(account, WATER);
    const dollars = await newQrLink(account, { ...WATER, currency: 'USD', exchange_rate: 17.5 });
    const credit = await newQrLink(account, { ...WATER, sat_payment_method: 'PPD', sat_payment_form: '99' });
    const other = await harness().bootstrap();
    const foreign = await newQrLink(other, WATER);
    await db()('qr_transactions').where({ id: invoiced.qrId }).update({ status: 'INVOICED' });
    await db()('qr_transactions')
      .where({ id: expired.qrId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    await db()('qr_transactions').where({ id: cancelled.qrId }).update({ status: 'CANCELLED' });
    const before = (await invoiceRows()).length;

    const tickets = [invoiced, expired, cancelled, dollars, credit, foreign].map(linkOf);
    const res = await confirmReviewed(first, {}, { additional_tickets: [...tickets, linkOf(first), 'NOT-A-CODE'] });
    expectError(res, 422, 'tickets_not_combinable');
    expect(codesOf(res)).to.have.members([
      'additional_tickets[0]:qr_already_invoiced',
      'additional_tickets[1]:qr_expired',
      'additional_tickets[2]:qr_cancelled',
      'additional_tickets[3]:currency_differs',
      'additional_tickets[4]:payment_method_differs',
      'additional_tickets[5]:other_issuer',
      'additional_tickets[6]:duplicate_ticket',
      'additional_tickets[7]:invalid_ticket',
    ]);
    expect((await invoiceRows()).length).to.equal(before);
    expect((await detail(first.qrId)).status).to.equal('PENDING');
    expect((await detail(dollars.qrId)).status).to.equal('PENDING');
    expectError(await buyer('tickets', first, { additional_tickets: ['7KQ4M-XR2PA'] }), 422, 'tickets_not_combinable');
  });

  it('two buyers claiming one ticket at once: one invoice has it, the other confirmation is refused at that ticket', async () => {
    const shared = await newQrLink(account, WATER);
    const mine = await newQrLink(account);
    const theirs = await newQrLink(account);
    const [a, b] = await Promise.all([confirmReviewed(mine, {}, { additional_tickets: [linkOf(shared)] }), confirmReviewed(theirs, {}, { additional_tickets: [linkOf(shared)] })]);
    expect([a.status, b.status].sort()).to.deep.equal([202, 422]);
    const loser = a.status === 422 ? a : b;
    expect(codesOf(loser)).to.deep.equal(['additional_tickets[0]:already_confirmed']);
    const holders = await db()('invoice_tickets').where({ transaction_id: shared.qrId });
    expect(holders).to.have.length(1);
    // The loser's own ticket is free again for another confirmation.
    const freed = a.status === 422 ? mine : theirs;
    expect((await db()('qr_transactions').where({ id: freed.qrId }).first('confirmed_at')).confirmed_at).to.equal(null);
  });

  it('a PAC refusal frees every ticket of the confirmation for a corrected one', async () => {
    const first = await newQrLink(account);
    const second = await newQrLink(account, WATER);
    expect((await confirmReviewed(first, { name: 'UNIVERSIDAD ROBOTICA' }, { additional_tickets: [linkOf(second)] })).status).to.equal(202);
    expect(await stamped(events, first.qrId)).to.include({ outcome: 'refused' });
    const rows = await db()('qr_transactions').whereIn('id', [first.qrId, second.qrId]).select('confirmed_at', 'status');
    expect(rows.map((r) => [r.confirmed_at, r.status])).to.deep.equal([
      [null, 'SCANNED'],
      [null, 'SCANNED'],
    ]);
    // The second ticket can now be invoiced on its own.
    expect((await confirmReviewed(second)).status).to.equal(202);
    expect(await stamped(events, second.qrId)).to.include({ outcome: 'stamped' });
  });

  describe('POST /v1/qrs/invoices (merchant API)', () => {
    const invoiceQrs = (body: Record<string, unknown>, key = account.apiKey) => call('POST', '/v1/qrs/invoices', { headers: { 'X-API-Key': key }, body });

    it('a dry run answers the tickets and the totals and records nothing; the real call stamps one CFDI and a retry answers the same', async () => {
      const first = await newQrLink(account, WATER);
      const second = await newQrLink(account);
      const before = (await invoiceRows()).length;
      const dry = await invoiceQrs({ qr_ids: [first.qrId, second.qrId], customer: BUYER, dry_run: true });
      expect(dry.status).to.equal(200);
      expect(dry.body).to.include({ dry_run: true });
      expect(dry.body.totals).to.deep.equal({ subtotal: 362, discount: 0, transferred_taxes: 56.32, withheld_taxes: 0, total: 418.32 });
      expect(dry.body.tickets.map((t: { amount: number }) => t.amount)).to.deep.equal([116, 302.32]);
      expect((await invoiceRows()).length).to.equal(before);
      expect((await detail(first.qrId)).status).to.equal('PENDING');

      const res = await invoiceQrs({ qr_ids: [first.qrId, second.qrId], customer: BUYER });
      expect(res.status).to.equal(202);
      expect(res.body).to.include({ status: 'STAMPING' });
      expect(res.body.qr_ids).to.deep.equal([first.qrId, second.qrId]);
      const retry = await invoiceQrs({ qr_ids: [first.qrId, second.qrId], customer: BUYER });
      expect(retry.status).to.equal(202);
      expect(await stamped(events, first.qrId)).to.include({ outcome: 'stamped' });
      const [a, b] = await Promise.all([detail(first.qrId), detail(second.qrId)]);
      expect([a.status, b.status]).to.deep.equal(['INVOICED', 'INVOICED']);
      expect(a.invoice.uuid).to.equal(b.invoice.uuid);
      expect(a.invoice.total).to.equal(418.32);
      // FormaPago of the greatest amount: the second ticket's card.
      expect(attribute(await stampedXml(first.qrId), 'FormaPago')).to.equal('04');
      // After the stamp too: the same request answers with the invoice; another one is refused at the ticket.
      const late = await invoiceQrs({ qr_ids: [first.qrId, second.qrId], customer: BUYER });
      expect(late.status).to.equal(202);
      expect(late.body).to.include({ status: 'ACTIVE' });
      expect(late.body.invoice.uuid).to.equal(a.invoice.uuid);
      const another = await invoiceQrs({ qr_ids: [first.qrId], customer: { ...BUYER, email: 'otro@example.test' } });
      expectError(another, 422, 'tickets_not_combinable');
      expect(codesOf(another)).to.deep.equal(['qr_ids[0]:qr_already_invoiced']);
    });

    it("refuses another merchant's QR, an unknown id and an invoiced one, field by field, and bad bodies with 400", async () => {
      const mine = await newQrLink(account, WATER);
      const other = await harness().bootstrap();
      const theirs = await newQrLink(other, WATER);
      const invoiced = await newQrLink(account, WATER);
      await db()('qr_transactions').where({ id: invoiced.qrId }).update({ status: 'INVOICED' });
      const res = await invoiceQrs({ qr_ids: [mine.qrId, theirs.qrId, 'qr_missing', invoiced.qrId], customer: BUYER });
      expectError(res, 422, 'tickets_not_combinable');
      expect(codesOf(res)).to.have.members(['qr_ids[1]:qr_not_found', 'qr_ids[2]:qr_not_found', 'qr_ids[3]:qr_already_invoiced']);
      expectError(await invoiceQrs({ qr_ids: [], customer: BUYER }), 400, 'validation_failed');
      expectError(await invoiceQrs({ qr_ids: [mine.qrId, mine.qrId], customer: BUYER }), 400, 'validation_failed');
      expectError(await invoiceQrs({ qr_ids: [mine.qrId], customer: BUYER }, 'bad-key'), 401, 'unauthorized');
      expect((await detail(mine.qrId)).status).to.equal('PENDING');
    });
  });
});
