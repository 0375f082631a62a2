import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { csfPdf, csfPdfWithoutQr, csfPhoto, KEMPER, otherImage, otherPdf, XOCHILT } from '../fixtures/csf/csf-documents.js';
import { offlineTicket } from '../../clients/typescript/src/offline-ticket.js';
import { newQrLink, type QrLink } from '../helpers/buyer.js';
import { qrBody } from '../helpers/qr-body.js';
import { harness } from '../helpers/harness.js';
import { storedFileCount } from '../helpers/stored-files.js';
import { call, expectError, type Answer } from '../helpers/http.js';

/** POST /v1/public/qrs/csf as the page sends it: the link's parameters in the query, the file in the form. */
async function sendCsf(link: Pick<QrLink, 'v' | 't' | 'm'> | URLSearchParams, file?: { data: Buffer; name: string }): Promise<Answer> {
  const form = new FormData();
  if (file) form.append('document', new Blob([new Uint8Array(file.data)]), file.name);
  const query = link instanceof URLSearchParams ? link : new URLSearchParams({ v: link.v, t: link.t, m: link.m });
  const res = await fetch(`${harness().baseUrl}/v1/public/qrs/csf?${query}`, { method: 'POST', body: form });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

describe("prefill from the buyer's tax-status certificate (CSF)", function () {
  // pdftoppm and the QR search run for real; on a busy 2-core machine a read takes seconds, and a file
  // that is no CSF may use the whole CSF_READ_TIMEOUT_MS (15 s in tests) before it is refused.
  this.timeout(180_000);
  let account: BootstrapResult;
  let link: QrLink;
  before(async () => {
    account = await harness().bootstrap();
    link = await newQrLink(account);
  });

  it("reads the QR of the CSF PDF and answers SAT's current data, with only this RFC's regimes", async () => {
    const calls = harness().csf.calls.length;
    const res = await sendCsf(link, { data: await csfPdf(XOCHILT), name: 'constancia.pdf' });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.include({ rfc: XOCHILT.rfc, name: XOCHILT.name, postal_code: XOCHILT.zip, status: 'ACTIVO', read_from: 'qr' });
    expect(res.body.tax_regimes.map((r: { code: string }) => r.code)).to.deep.equal(['612', '626']);
    expect(res.body.tax_regimes[0].description).to.be.a('string').that.is.not.empty;
    // SAT was asked, with the idCIF from the QR.
    expect(harness().csf.calls.slice(calls)).to.deep.equal([{ rfc: XOCHILT.rfc, idCif: XOCHILT.idCif }]);
  });

  it('reads a phone photo of the QR, and the printed RFC and idCIF of a PDF whose QR is missing', async () => {
    const photo = await sendCsf(link, { data: await csfPhoto(KEMPER), name: 'foto.jpg' });
    expect(photo.status, JSON.stringify(photo.body)).to.equal(200);
    expect(photo.body).to.deep.include({ rfc: KEMPER.rfc, read_from: 'qr' });
    expect(photo.body.tax_regimes).to.deep.equal([{ code: '601', description: photo.body.tax_regimes[0].description }]);
    const text = await sendCsf(link, { data: await csfPdfWithoutQr(XOCHILT), name: 'constancia.pdf' });
    expect(text.status, JSON.stringify(text.body)).to.equal(200);
    expect(text.body).to.deep.include({ rfc: XOCHILT.rfc, read_from: 'text' });
  });

  it('refuses what is not a CSF with 422 csf_unreadable, and keeps none of the files', async () => {
    const stored = await storedFileCount();
    for (const [data, name] of [
      [await otherPdf(), 'carta.pdf'],
      [await otherImage(), 'foto.png'],
      [Buffer.from('hola, no soy un PDF'), 'nota.txt'],
    ] as const) {
      const res = await sendCsf(link, { data, name });
      expectError(res, 422, 'csf_unreadable');
      expect(res.body.error.details[0].field).to.equal('document');
    }
    expect(await storedFileCount()).to.equal(stored);
  });

  it('answers 400 without a file or with a bad link, and 404 when SAT does not know the certificate', async () => {
    expectError(await sendCsf(link), 400, 'document_required');
    expectError(await sendCsf({ ...link, m: `${link.m.startsWith('A') ? 'B' : 'A'}${link.m.slice(1)}` }, { data: await csfPdf(XOCHILT), name: 'c.pdf' }), 400, 'invalid_signature');
    const stranger = { rfc: 'MEJJ940824C61', idCif: '17040123456', name: 'JUAN MENDEZ JIMENEZ', zip: '01000' };
    expectError(await sendCsf(link, { data: await csfPdf(stranger), name: 'c.pdf' }), 404, 'csf_not_found');
  });

  it("answers 503 csf_unavailable when SAT's service keeps failing, so the buyer types the data instead", async () => {
    harness().csf.script(XOCHILT.rfc, { kind: 'status', status: 502 }, { kind: 'status', status: 503 });
    expectError(await sendCsf(link, { data: await csfPdf(XOCHILT), name: 'c.pdf' }), 503, 'csf_unavailable');
  });

  it('is only for a sale that can still be invoiced', async () => {
    const expired = await newQrLink(account);
    await harness().deps.db('qr_transactions').where({ id: expired.qrId }).update({ status: 'EXPIRED' });
    expectError(await sendCsf(expired, { data: await csfPdf(XOCHILT), name: 'c.pdf' }), 410, 'qr_expired');
  });

  it("fills an offline ticket's waiting page too, while the ticket is open; a revoked key's ticket is 410 before the file is read (issue #39)", async () => {
    const bearer = { Authorization: `Bearer ${account.accessToken}` };
    const issued = await call('POST', `/v1/qrs/merchants/${account.merchantId}/offline-keys`, { headers: bearer, body: {} });
    expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
    const sale = qrBody(account.storeUid);
    const ticket = new URL(offlineTicket(issued.body.offlineKey as string, issued.body.linkBaseUrl as string, { saleId: sale.sale_id, amount: sale.amount }).link).searchParams;
    const res = await sendCsf(ticket, { data: await csfPdf(XOCHILT), name: 'constancia.pdf' });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.include({ rfc: XOCHILT.rfc, name: XOCHILT.name, postal_code: XOCHILT.zip });

    const forged = new URLSearchParams(ticket);
    forged.set('a', '1.00');
    expectError(await sendCsf(forged, { data: await csfPdf(XOCHILT), name: 'constancia.pdf' }), 400, 'invalid_signature');
    const revoked = await call('POST', `/v1/qrs/merchants/${account.merchantId}/offline-keys/${issued.body.keyId as string}/revoke`, { headers: bearer, body: { graceHours: 0 } });
    expect(revoked.status, JSON.stringify(revoked.body)).to.equal(200);
    expectError(await sendCsf(ticket, { data: await csfPdf(XOCHILT), name: 'constancia.pdf' }), 410, 'offline_ticket_closed');
  });
});
