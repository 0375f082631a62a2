import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { jobId } from '../../shared/platform/jobs.js';
import { BUYER, confirmReviewed, newQrLink, queueEvents, stamped } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';

const run = promisify(execFile);

describe('invoice files: XML and PDF for the merchant and the buyer', () => {
  let account: BootstrapResult;
  let stampEvents: QueueEvents;
  let pdfEvents: QueueEvents;
  let invoice: { uuid: string; xml_url: string; pdf_url: string };
  before(async function () {
    // A stamp job may go through all its attempts (see stamped()), then the PDF is rendered.
    this.timeout(90_000);
    account = await harness().bootstrap();
    [stampEvents, pdfEvents] = await Promise.all([queueEvents('stamp'), queueEvents('pdf')]);
    const link = await newQrLink(account);
    await confirmReviewed(link);
    await stamped(stampEvents, link.qrId);
    const row = await harness().deps.db('invoices').where({ transaction_id: link.qrId }).first('id');
    const pdfJob = await harness().producers.queue('pdf').getJob(jobId.renderInvoicePdf(row.id));
    await pdfJob!.waitUntilFinished(pdfEvents, 30_000);
    invoice = (await call('GET', `/v1/qrs/${link.qrId}`, { headers: { 'X-API-Key': account.apiKey } })).body.invoice;
  });
  after(async () => {
    await stampEvents.close();
    await pdfEvents.close();
  });

  it('the merchant downloads the XML (API key) and the PDF (account token) in Base64', async () => {
    const xml = await call('GET', `/v1/qrs/invoices/uuid/${invoice.uuid}/xml`, { headers: { 'X-API-Key': account.apiKey } });
    expect(xml.status).to.equal(200);
    expect(xml.body).to.include({ uuid: invoice.uuid, file_name: `${invoice.uuid}.xml`, content_type: 'application/xml' });
    expect(Buffer.from(xml.body.content, 'base64').toString('utf8')).to.contain(`UUID="${invoice.uuid}"`);

    const pdf = await call('GET', `/v1/qrs/invoices/uuid/${invoice.uuid.toLowerCase()}/pdf`, { headers: { Authorization: `Bearer ${account.accessToken}` } });
    expect(pdf.status).to.equal(200);
    expect(pdf.body).to.include({ file_name: `${invoice.uuid}.pdf`, content_type: 'application/pdf' });
    const dir = mkdtempSync(join(tmpdir(), 'invoice-pdf-'));
    writeFileSync(join(dir, 'invoice.pdf'), Buffer.from(pdf.body.content, 'base64'));
    const { stdout } = await run('pdftotext', ['-layout', join(dir, 'invoice.pdf'), '-']);
    for (const text of [invoice.uuid, 'EKU9003173C9', BUYER.rfc, '302.32', 'TRESCIENTOS DOS PESOS 32/100 M.N.']) expect(stdout).to.contain(text);
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
    expect(await xml.text()).to.contain(invoice.uuid);
    const forged = await call('GET', `/v1/public/invoices/${invoice.uuid}.xml?sig=AAAAAAAAAAAAAAAAAAAAAA`);
    expectError(forged, 403, 'invalid_signature');
  });
});
