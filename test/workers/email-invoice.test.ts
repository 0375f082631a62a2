import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { confirmReviewed, emailed, newQrLink, queueEvents, stamped, type QrLink } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';

describe('invoice e-mail', function () {
  // A test waits for a stamp job through all its attempts (see stamped()), then for the e-mail.
  this.timeout(90_000);
  let account: BootstrapResult;
  let events: Record<'stamp' | 'email', QueueEvents>;
  before(async () => {
    account = await harness().bootstrap();
    events = { stamp: await queueEvents('stamp'), email: await queueEvents('email') };
  });
  after(async () => {
    await Promise.all(Object.values(events).map((e) => e.close()));
  });

  async function invoiced(link: QrLink): Promise<{ id: string; uuid: string }> {
    await confirmReviewed(link, { email: `buyer-${link.qrId}@example.test` });
    await stamped(events.stamp, link.qrId);
    return harness().deps.db('invoices').where({ transaction_id: link.qrId, status: 'ACTIVE' }).first('id', 'uuid');
  }

  // The stamp queues the e-mail (its batch's, issue #40): once the stamp has finished, the e-mail job exists.
  const delivered = (invoiceId: string) => emailed(events.email, invoiceId);

  it('sends the XML and the PDF to the buyer after the stamp; the PDF is rendered for the mail, not kept', async () => {
    const link = await newQrLink(account);
    const invoice = await invoiced(link);
    await delivered(invoice.id);
    const mail = harness().smtp.messages.find((m) => m.to.includes(`buyer-${link.qrId}@example.test`));
    expect(mail, 'message delivered').to.not.equal(undefined);
    expect(mail!.attachment(`${invoice.uuid}.xml`)!.toString('utf8')).to.contain(`UUID="${invoice.uuid.toLowerCase()}"`);
    const attached = mail!.attachment(`${invoice.uuid}.pdf`)!;
    expect(attached.subarray(0, 5).toString()).to.equal('%PDF-');
    expect(mail!.body('text/plain')).to.contain('302.32');
    const row = await harness().deps.db('invoices').where({ id: invoice.id }).first('email_sent_at', 'pdf_file_key');
    expect(row.email_sent_at).to.be.instanceOf(Date);
    expect(row.pdf_file_key, 'no PDF kept for the e-mail').to.equal(null);
    // The merchant's download renders the same document, byte for byte.
    const pdf = await call('GET', `/v1/qrs/invoices/uuid/${invoice.uuid}/pdf`, { headers: { 'X-API-Key': account.apiKey } });
    expect(pdf.status).to.equal(200);
    expect(Buffer.from(pdf.body.content, 'base64').equals(attached)).to.equal(true);
  });

  it('a mail server refusing for now is retried; the invoice is unaffected', async () => {
    harness().smtp.failNext(2, { code: 451 });
    const link = await newQrLink(account);
    const invoice = await invoiced(link);
    expect((await call('GET', `/v1/qrs/${link.qrId}`, { headers: { 'X-API-Key': account.apiKey } })).body.status).to.equal('INVOICED');
    await delivered(invoice.id);
    expect(harness().smtp.messages.some((m) => m.to.includes(`buyer-${link.qrId}@example.test`))).to.equal(true);
  });

  const again = (link: QrLink, extra: { email?: string; rfc?: string } = {}) => call('POST', '/v1/public/qrs/email', { body: { v: link.v, t: link.t, m: link.m, ...extra } });

  it('attaches the PDF kept for an invoice rendered before PDFs were made on demand', async () => {
    const link = await newQrLink(account);
    const invoice = await invoiced(link);
    await delivered(invoice.id);
    // The PDF the PDF job of an earlier release kept for this invoice.
    const kept = Buffer.from('%PDF-1.3 kept by an earlier release\n');
    const key = await harness().deps.files.put('invoices', { contentType: 'application/pdf', data: kept }, 'pdf');
    await harness().deps.db('invoices').where({ id: invoice.id }).update({ pdf_file_key: key });
    const before = harness().smtp.messages.length;
    expect((await again(link)).status).to.equal(202);
    const [mail] = (await harness().smtp.waitForMessages(before + 1, 30_000)).slice(before);
    expect(mail!.attachment(`${invoice.uuid}.pdf`)!.equals(kept)).to.equal(true);
  });

  it('the buyer asks for it again at another address, giving their RFC', async () => {
    const link = await newQrLink(account);
    const invoice = await invoiced(link);
    await delivered(invoice.id);
    const before = harness().smtp.messages.length;
    const res = await again(link, { email: 'contador@example.test', rfc: ' ure180429tm6' });
    expect(res.status).to.equal(202);
    expect(res.body).to.deep.equal({ status: 'QUEUED', to: 'c•••@example.test' });
    const [mail] = (await harness().smtp.waitForMessages(before + 1, 30_000)).slice(before);
    expect(mail!.to).to.deep.equal(['contador@example.test']);
  });

  it('not a relay: the ticket alone cannot send the invoice to a new address, nor with another RFC; nothing is sent', async () => {
    const link = await newQrLink(account);
    const invoice = await invoiced(link);
    await delivered(invoice.id);
    const before = harness().smtp.messages.length;
    const bare = await again(link, { email: 'stranger@example.test' });
    expect(bare.status).to.equal(403);
    expect(bare.body.error.code).to.equal('buyer_rfc_required');
    expect(bare.body.error.details[0].field).to.equal('rfc');
    const wrong = await again(link, { email: 'stranger@example.test', rfc: 'XAXX010101000' });
    expect(wrong.status).to.equal(403);
    expect(wrong.body.error.code).to.equal('buyer_rfc_mismatch');
    // The confirmation's address still works with the ticket alone, and is the only mail that goes out.
    const own = await again(link);
    expect(own.status).to.equal(202);
    expect(own.body.to).to.equal(`b•••@example.test`);
    const [mail] = (await harness().smtp.waitForMessages(before + 1, 30_000)).slice(before);
    expect(mail!.to).to.deep.equal([`buyer-${link.qrId}@example.test`]);
    const queued = await harness().producers.queue('email').getJobs(['waiting', 'active', 'delayed', 'completed', 'failed']);
    expect(queued.filter((job) => (job.data as { to?: string }).to === 'stranger@example.test')).to.deep.equal([]);
    const lines = harness().logs.filter((l) => l.includes(link.qrId) && l.includes('invoice e-mail'));
    expect(lines.map((l) => JSON.parse(l).msg)).to.deep.equal(['invoice e-mail refused', 'invoice e-mail refused', 'invoice e-mail requested']);
    expect(lines.join('\n')).to.not.match(/stranger|buyer-|URE180429TM6/);
  });

  it('a few sends per QR per day: past EMAIL_SENDS_PER_QR_PER_DAY the answer is 429 with Retry-After, refusals counted', async () => {
    const link = await newQrLink(account);
    await delivered((await invoiced(link)).id);
    const limit = harness().deps.config.emailSendsPerQrPerDay;
    expect(limit).to.equal(5);
    expect((await again(link, { email: 'guess@example.test', rfc: 'AAA010101AAA' })).status).to.equal(403);
    for (let i = 1; i < limit; i++) expect((await again(link)).status, `request ${i + 1}`).to.equal(202);
    const over = await again(link);
    expect(over.status).to.equal(429);
    expect(over.body.error.code).to.equal('email_limit_reached');
    expect(Number(over.headers.get('retry-after'))).to.be.within(86_000, 86_400);
    // Another QR has its own allowance.
    const other = await newQrLink(account);
    await delivered((await invoiced(other)).id);
    expect((await again(other)).status).to.equal(202);
  });
});
