import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { invoiceFileUrl } from '../../shared/invoices/invoice-links.js';
import { BUYER, confirmReviewed, emailed, linkQuery, newQrLink, queueEvents, queueEventsOf, stamped, type QrLink } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';

/** A buyer without an RFC: público en general, with the store's zip. */
const NO_RFC = { rfc: 'XAXX010101000', name: 'JUAN PEREZ', tax_regime: '616', postal_code: '42501', cfdi_use: 'S01' };

/**
 * Issue #28 item 6: the QR link is on a paper ticket that may be thrown away; the invoice's XML carries the
 * buyer's RFC, name and fiscal zip. A ticket alone shows that the sale is invoiced (UUID, date), never the
 * files nor the buyer's data; the files go to whoever proves the buyer's RFC, through links that expire.
 */
describe("the buyer's tax data behind a ticket (issue #28)", function () {
  this.timeout(90_000);
  let account: BootstrapResult;
  let events: QueueEvents;
  let link: QrLink;
  before(async () => {
    account = await harness().bootstrap();
    events = await queueEvents('stamp');
    link = await invoicedLink();
  });
  after(() => events.close());

  async function invoicedLink(customer: Parameters<typeof confirmReviewed>[1] = {}): Promise<QrLink> {
    const l = await newQrLink(account);
    expect((await confirmReviewed(l, customer)).status).to.equal(202);
    expect(await stamped(events, l.qrId)).to.include({ outcome: 'stamped' });
    return l;
  }
  const files = (l: QrLink, rfc: string) => call('POST', '/v1/public/qrs/invoice-files', { body: { v: l.v, t: l.t, m: l.m, rfc } });
  const path = (url: string) => url.slice(harness().deps.config.publicBaseUrl.length);
  const BUYER_DATA = [BUYER.rfc, BUYER.name, BUYER.postal_code, BUYER.email, '/v1/public/invoices/'];

  it('re-opening an invoiced ticket shows that it is invoiced and when, never the files nor the buyer’s data', async () => {
    const stored = await harness().deps.db('invoices').where({ transaction_id: link.qrId, status: 'ACTIVE' }).first('uuid', 'stamped_at');
    const resolved = await call('GET', `/v1/public/qrs/resolve?${linkQuery(link)}`);
    expectError(resolved, 409, 'qr_already_invoiced');
    expect(resolved.body.error.invoice).to.include({ uuid: stored.uuid, issued_at: (stored.stamped_at as Date).toISOString(), status: 'ACTIVE' });
    const status = await call('GET', `/v1/public/qrs/status?${linkQuery(link)}`);
    expect(status.body.confirmation.invoice.uuid).to.equal(stored.uuid);
    const page = await call('GET', `/q?${linkQuery(link)}`);
    expect(page.status).to.equal(409);
    const html = page.body.toString();
    expect(html).to.contain('Factura emitida').and.contain(stored.uuid).and.contain('id="files-form"');
    for (const answer of [JSON.stringify(resolved.body), JSON.stringify(status.body), html]) {
      for (const secret of BUYER_DATA) expect(answer, secret).to.not.contain(secret);
    }
  });

  it("answers the files only to the buyer's RFC; a wrong one is 403, a generic one never proves anything", async () => {
    expectError(await files(link, 'EKU9003173C9'), 403, 'buyer_rfc_mismatch');
    expectError(await files(link, 'XAXX010101000'), 403, 'buyer_rfc_mismatch');
    const proven = await files(link, ` ${BUYER.rfc.toLowerCase()} `);
    expect(proven.status).to.equal(200);
    const exp = Number(new URL(proven.body.xml_url).searchParams.get('exp'));
    expect(exp * 1000 - Date.now()).to.be.within(3_500_000, 3_600_000);
    expect(proven.body.links_expire_at).to.equal(new Date(exp * 1000).toISOString());
    const xml = await call('GET', path(proven.body.xml_url));
    expect(xml.status).to.equal(200);
    expect(xml.body.toString()).to.contain(BUYER.rfc);
  });

  it('counts wrong RFCs per ticket: past 10 a day, 429 rfc_attempts_exceeded, even for the right one', async () => {
    const other = await invoicedLink();
    const wrong = await Promise.all(Array.from({ length: 12 }, () => files(other, 'EKU9003173C9')));
    expect(wrong.map((r) => r.status).sort()).to.deep.equal([...Array<number>(10).fill(403), 429, 429]);
    const right = await files(other, BUYER.rfc);
    expectError(right, 429, 'rfc_attempts_exceeded');
    expect(Number(right.headers.get('retry-after'))).to.be.within(1, 86_400);
    // The right RFC does not use up the allowance of the ticket whose buyer keeps coming back.
    for (let i = 0; i < 12; i++) expect((await files(link, BUYER.rfc)).status).to.equal(200);
  });

  it('an invoice to the generic RFC: no files and no new address from the ticket, whatever RFC is typed', async () => {
    await call('PUT', `/v1/qrs/merchants/${account.merchantId}`, {
      headers: { Authorization: `Bearer ${account.accessToken}` },
      body: { invoiceRules: { allowGenericRfc: true } },
    });
    const generic = await invoicedLink(NO_RFC);
    expectError(await files(generic, 'XAXX010101000'), 403, 'buyer_rfc_generic');
    const body = { v: generic.v, t: generic.t, m: generic.m, email: 'otro@example.test', rfc: 'XAXX010101000' };
    expectError(await call('POST', '/v1/public/qrs/email', { body }), 403, 'buyer_rfc_generic');
  });

  it('invoice file links expire: past exp 410 link_expired; an exp moved by hand 403', async () => {
    const uuid = (await harness().deps.db('invoices').where({ transaction_id: link.qrId, status: 'ACTIVE' }).first('uuid')).uuid as string;
    const key = harness().deps.config.urlSigningKey;
    const old = invoiceFileUrl(harness().deps.config.publicBaseUrl, uuid, 'xml', key, 3600, new Date(Date.now() - 2 * 3600_000));
    expectError(await call('GET', path(old)), 410, 'link_expired');
    const moved = new URL(old);
    moved.searchParams.set('exp', String(Math.floor(Date.now() / 1000) + 3600));
    expectError(await call('GET', `${moved.pathname}${moved.search}`), 403, 'invalid_signature');
    // A link without exp (as issued before) is no longer valid.
    expectError(await call('GET', `${moved.pathname}?sig=${moved.searchParams.get('sig')}`), 403, 'invalid_signature');
  });

  it('the e-mailed link lives 7 days', async () => {
    const row = await harness().deps.db('invoices').where({ transaction_id: link.qrId, status: 'ACTIVE' }).first('id', 'uuid');
    // The stamp queues the e-mail job.
    const { events: jobs, close } = await queueEventsOf('email');
    try {
      await emailed(jobs.email, row.id as string);
    } finally {
      await close();
    }
    const mail = harness().smtp.messages.find((m) => m.attachment(`${row.uuid}.xml`));
    const url = /https?:\/\/\S+\.pdf\?exp=(\d+)&sig=[\w-]+/.exec(mail!.body('text/plain') ?? '');
    expect(Number(url![1]) * 1000 - Date.now()).to.be.within(7 * 86_400_000 - 120_000, 7 * 86_400_000);
  });
});
