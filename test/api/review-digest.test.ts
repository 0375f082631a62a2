import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { parseXml } from '../../shared/domain/cfdi/parse-xml.js';
import { attribute, child, children } from '../../shared/domain/cfdi/xml-element.js';
import { BUYER, newQrLink, preview, queueEvents, stamped, type QrLink } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';
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

/** Issue #29: what is stamped is what was reviewed — confirm carries the preview's review_digest. */
describe('confirm stamps only what the preview showed (review_digest)', function () {
  this.timeout(90_000);
  let account: BootstrapResult;
  let events: QueueEvents;
  before(async () => {
    account = await harness().bootstrap();
    events = await queueEvents('stamp');
  });
  after(() => events.close());

  const db = () => harness().deps.db;
  const linkOf = (link: QrLink) => `${harness().deps.config.publicBaseUrl}/q?${new URLSearchParams({ v: link.v, t: link.t, m: link.m })}`;
  const confirm = (link: QrLink, body: Record<string, unknown>) => call('POST', '/v1/public/qrs/confirm', { body: { v: link.v, t: link.t, m: link.m, customer: BUYER, ...body } });
  const recorded = (...links: QrLink[]) =>
    db()('invoice_tickets').whereIn(
      'transaction_id',
      links.map((l) => l.qrId),
    );
  const stampedTotal = async (qrId: string) => {
    const invoice = await db()('invoices').where({ transaction_id: qrId, status: 'ACTIVE' }).first('xml_file_key');
    const xml = parseXml((await harness().deps.files.get(invoice.xml_file_key as string))!.data.toString('utf8'));
    return { total: Number(attribute(xml, 'Total')), concepts: children(child(xml, 'cfdi:Conceptos')!, 'cfdi:Concepto').length };
  };

  it('preview answers every ticket with its concepts and a digest; confirm without the digest is 400 and records nothing', async () => {
    const link = await newQrLink(account, WATER);
    const reviewed = await preview(link);
    expect(reviewed.status).to.equal(200);
    expect(reviewed.body.review_digest).to.be.a('string').with.length.above(20);
    expect(reviewed.body.tickets).to.have.length(1);
    expect(reviewed.body.tickets[0].operation_data).to.deep.equal([{ description: 'Agua 20 L', quantity: 2, amount: 100 }]);
    // The same request previewed again: the same digest.
    expect((await preview(link)).body.review_digest).to.equal(reviewed.body.review_digest);

    const res = await confirm(link, {});
    expectError(res, 400, 'validation_failed');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).to.include('review_digest');
    expect(await recorded(link)).to.have.length(0);
  });

  it('a ticket added after the preview: 409 review_outdated with the new review, nothing stamped; its digest then stamps that total', async () => {
    const first = await newQrLink(account, WATER);
    const second = await newQrLink(account, WATER);
    const reviewed = await preview(first);
    expect(reviewed.body.totals.total).to.equal(116);

    const stale = await confirm(first, { additional_tickets: [linkOf(second)], review_digest: reviewed.body.review_digest });
    expectError(stale, 409, 'review_outdated');
    const review = stale.body.error.review;
    expect(review.totals.total).to.equal(232);
    expect(review.tickets.map((t: { amount: number }) => t.amount)).to.deep.equal([116, 116]);
    expect(review.review_digest).to.be.a('string').and.not.equal(reviewed.body.review_digest);
    expect(await recorded(first, second)).to.have.length(0);
    expect(await db()('qr_transactions').whereIn('id', [first.qrId, second.qrId]).pluck('status')).to.not.include('INVOICED');

    const res = await confirm(first, { additional_tickets: [linkOf(second)], review_digest: review.review_digest });
    expect(res.status).to.equal(202);
    expect(await stamped(events, first.qrId)).to.include({ outcome: 'stamped' });
    expect(await stampedTotal(first.qrId)).to.deep.equal({ total: 232, concepts: 2 });
  });

  it('a ticket removed after the preview: 409 review_outdated with the one-ticket total; the right digest stamps it', async () => {
    const first = await newQrLink(account, WATER);
    const second = await newQrLink(account, WATER);
    const reviewed = await preview(first, {}, { additional_tickets: [linkOf(second)] });
    expect(reviewed.body.totals.total).to.equal(232);

    const stale = await confirm(first, { review_digest: reviewed.body.review_digest });
    expectError(stale, 409, 'review_outdated');
    expect(stale.body.error.review.totals.total).to.equal(116);
    expect(await recorded(first, second)).to.have.length(0);

    const again = await preview(first);
    const res = await confirm(first, { review_digest: again.body.review_digest });
    expect(res.status).to.equal(202);
    expect(await stamped(events, first.qrId)).to.include({ outcome: 'stamped' });
    expect(await stampedTotal(first.qrId)).to.deep.equal({ total: 116, concepts: 1 });
  });

  it('other buyer data than previewed (another e-mail) is outdated too', async () => {
    const link = await newQrLink(account, WATER);
    const reviewed = await preview(link);
    expectError(await confirm(link, { customer: { ...BUYER, email: 'otra@example.test' }, review_digest: reviewed.body.review_digest }), 409, 'review_outdated');
    expect(await recorded(link)).to.have.length(0);
  });

  describe('POST /v1/qrs/invoices (merchant API)', () => {
    const invoiceQrs = (body: Record<string, unknown>) => call('POST', '/v1/qrs/invoices', { headers: { 'X-API-Key': account.apiKey }, body });

    it("the dry run answers a review_digest; the real call with another list's digest is 409 review_outdated and records nothing; with its own, 202", async () => {
      const first = await newQrLink(account, WATER);
      const second = await newQrLink(account, WATER);
      const dry = await invoiceQrs({ qr_ids: [first.qrId], customer: BUYER, dry_run: true });
      expect(dry.status).to.equal(200);
      expect(dry.body.review_digest).to.be.a('string');

      const stale = await invoiceQrs({ qr_ids: [first.qrId, second.qrId], customer: BUYER, review_digest: dry.body.review_digest });
      expectError(stale, 409, 'review_outdated');
      expect(stale.body.error.review.totals.total).to.equal(232);
      expect(await recorded(first, second)).to.have.length(0);

      const res = await invoiceQrs({ qr_ids: [first.qrId, second.qrId], customer: BUYER, review_digest: stale.body.error.review.review_digest });
      expect(res.status).to.equal(202);
      expect(await stamped(events, first.qrId)).to.include({ outcome: 'stamped' });
      expect(await stampedTotal(first.qrId)).to.deep.equal({ total: 232, concepts: 2 });
    });
  });
});
