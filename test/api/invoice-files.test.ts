import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { attachPdf } from '../../shared/repositories/invoices.js';
import { BUYER, confirmReviewed, newQrLink, queueEvents, stamped } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';

const run = promisify(execFile);

describe('invoice files: XML and PDF for the merchant and the buyer', function () {
  let account: BootstrapResult;
  let stampEvents: QueueEvents;
  let invoice: { uuid: string; xml_url: string; pdf_url: string };
  // A stamp job may go through all its attempts (see stamped()).
  this.timeout(90_000);

  /** A freshly stamped invoice, as GET /v1/qrs/{qrId} shows it. */
  async function stampedInvoice(): Promise<{ uuid: string; xml_url: string; pdf_url: string }> {
    const link = await newQrLink(account);
    await confirmReviewed(link);
    await stamped(stampEvents, link.qrId);
    return (await call('GET', `/v1/qrs/${link.qrId}`, { headers: { 'X-API-Key': account.apiKey } })).body.invoice;
  }
  const keptPdf = async (uuid: string) => (await harness().deps.db('invoices').where({ uuid }).first('pdf_file_key')).pdf_file_key as string | null;
  const merchantPdf = async (uuid: string) => {
    const res = await call('GET', `/v1/qrs/invoices/uuid/${uuid}/pdf`, { headers: { 'X-API-Key': account.apiKey } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return Buffer.from(res.body.content, 'base64');
  };
  const buyerPdf = async (pdfUrl: string) => {
    const res = await fetch(`${harness().baseUrl}${pdfUrl.slice(harness().deps.config.publicBaseUrl.length)}`);
    expect(res.status).to.equal(200);
    return Buffer.from(await res.arrayBuffer());
  };

  before(async () => {
    account = await harness().bootstrap();
    stampEvents = await queueEvents('stamp');
    invoice = await stampedInvoice();
  });
  after(() => stampEvents.close());

  it('the merchant downloads the XML (API key) and the PDF (account token) in Base64', async () => {
    const xml = await call('GET', `/v1/qrs/invoices/uuid/${invoice.uuid}/xml`, { headers: { 'X-API-Key': account.apiKey } });
    expect(xml.status).to.equal(200);
    expect(xml.body).to.include({ uuid: invoice.uuid, file_name: `${invoice.uuid}.xml`, content_type: 'application/xml' });
    // The XML as the PAC returned it: SW writes the UUID in lower case.
    expect(Buffer.from(xml.body.content, 'base64').toString('utf8')).to.contain(`UUID="${invoice.uuid.toLowerCase()}"`);

    const pdf = await call('GET', `/v1/qrs/invoices/uuid/${invoice.uuid.toLowerCase()}/pdf`, { headers: { Authorization: `Bearer ${account.accessToken}` } });
    expect(pdf.status).to.equal(200);
    expect(pdf.body).to.include({ file_name: `${invoice.uuid}.pdf`, content_type: 'application/pdf' });
    const dir = mkdtempSync(join(tmpdir(), 'invoice-pdf-'));
    writeFileSync(join(dir, 'invoice.pdf'), Buffer.from(pdf.body.content, 'base64'));
    const { stdout } = await run('pdftotext', ['-layout', join(dir, 'invoice.pdf'), '-']);
    // The PDF prints the folio fiscal as the stamped XML writes it (SW: lower case).
    for (const text of [invoice.uuid.toLowerCase(), 'EKU9003173C9', BUYER.rfc, '302.32', 'TRESCIENTOS DOS PESOS 32/100 M.N.']) expect(stdout).to.contain(text);
  });

  it('another merchant, a bad UUID or no credentials get 404 / 401', async () => {
    const other = await harness().bootstrap();
    expectError(await call('GET', `/v1/qrs/invoices/uuid/${invoice.uuid}/xml`, { headers: { 'X-API-Key': other.apiKey } }), 404, 'invoice_not_found');
    expectError(await call('GET', `/v1/qrs/invoices/uuid/${invoice.uuid}/pdf`, { headers: { Authorization: `Bearer ${other.accessToken}` } }), 404, 'invoice_not_found');
    expectError(await call('GET', '/v1/qrs/invoices/uuid/not-a-uuid/xml', { headers: { 'X-API-Key': account.apiKey } }), 404, 'invoice_not_found');
    expectError(await call('GET', `/v1/qrs/invoices/uuid/${invoice.uuid}/xml`), 401, 'unauthorized');
  });

  it('the buyer opens xml_url and pdf_url without credentials; a forged signature is 403', async () => {
    const base = harness().deps.config.publicBaseUrl;
    const pdf = await fetch(`${harness().baseUrl}${invoice.pdf_url.slice(base.length)}&download=1`);
    expect(pdf.status).to.equal(200);
    expect(pdf.headers.get('content-type')).to.equal('application/pdf');
    expect(pdf.headers.get('content-disposition')).to.equal(`attachment; filename="${invoice.uuid}.pdf"`);
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).to.equal('%PDF-');
    const xml = await fetch(`${harness().baseUrl}${invoice.xml_url.slice(base.length)}`);
    expect(await xml.text()).to.contain(invoice.uuid.toLowerCase());
    const forged = await call('GET', `/v1/public/invoices/${invoice.uuid}.xml?sig=AAAAAAAAAAAAAAAAAAAAAA`);
    expectError(forged, 403, 'invalid_signature');
  });

  it('no PDF is kept after the stamp; the first request renders and keeps it, the next ones get the kept bytes', async () => {
    const fresh = await stampedInvoice();
    expect(await keptPdf(fresh.uuid), 'nothing rendered before someone asks').to.equal(null);
    const first = await merchantPdf(fresh.uuid);
    expect(first.subarray(0, 5).toString()).to.equal('%PDF-');
    const key = await keptPdf(fresh.uuid);
    expect(key, 'kept by the first request').to.be.a('string');
    expect((await harness().deps.files.get(key!))!.data.equals(first)).to.equal(true);
    expect((await merchantPdf(fresh.uuid)).equals(first), 'the merchant again').to.equal(true);
    expect((await buyerPdf(fresh.pdf_url)).equals(first), "the buyer's link").to.equal(true);
    expect(await keptPdf(fresh.uuid), 'rendered once').to.equal(key);
  });

  it("the buyer's link may be the first request too", async () => {
    const fresh = await stampedInvoice();
    const first = await buyerPdf(fresh.pdf_url);
    expect(first.subarray(0, 5).toString()).to.equal('%PDF-');
    expect((await harness().deps.files.get((await keptPdf(fresh.uuid))!))!.data.equals(first)).to.equal(true);
  });

  it('two first requests at once both get the PDF, the same bytes; one is kept', async () => {
    const fresh = await stampedInvoice();
    const [a, b] = await Promise.all([merchantPdf(fresh.uuid), buyerPdf(fresh.pdf_url)]);
    expect(a.equals(b)).to.equal(true);
    const key = (await keptPdf(fresh.uuid))!;
    expect((await harness().deps.files.get(key))!.data.equals(a)).to.equal(true);
    // Another API process that rendered at the same moment records its copy too late: the first one stays.
    const { id } = await harness().deps.db('invoices').where({ uuid: fresh.uuid }).first('id');
    await attachPdf(harness().deps.db, id, await harness().deps.files.put('invoices', { contentType: 'application/pdf', data: a }, 'pdf'));
    expect(await keptPdf(fresh.uuid)).to.equal(key);
  });

  it('serves the PDF kept for an invoice rendered before PDFs were made on demand', async () => {
    const fresh = await stampedInvoice();
    const kept = Buffer.from('%PDF-1.3 kept by an earlier release\n');
    const key = await harness().deps.files.put('invoices', { contentType: 'application/pdf', data: kept }, 'pdf');
    await harness().deps.db('invoices').where({ uuid: fresh.uuid }).update({ pdf_file_key: key });
    expect((await merchantPdf(fresh.uuid)).equals(kept)).to.equal(true);
    expect((await buyerPdf(fresh.pdf_url)).equals(kept)).to.equal(true);
  });

  it('without its stored XML there is no PDF to render: 503 file_not_ready, nothing kept', async () => {
    const fresh = await stampedInvoice();
    await harness().deps.db('invoices').where({ uuid: fresh.uuid }).update({ xml_file_key: 'invoices/missing.xml' });
    expectError(await call('GET', `/v1/qrs/invoices/uuid/${fresh.uuid}/pdf`, { headers: { 'X-API-Key': account.apiKey } }), 503, 'file_not_ready');
    expect(await keptPdf(fresh.uuid)).to.equal(null);
  });
});
