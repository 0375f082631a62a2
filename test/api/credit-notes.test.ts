import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { jobId } from '../../shared/platform/jobs.js';
import { confirmReviewed, newQrLink, queueEventsOf, stamped } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';
import { cadenaOriginal } from '../../shared/domain/cfdi/cadena-original.js';
import { parseXml } from '../../shared/domain/cfdi/parse-xml.js';
import { satCadena, xsdInvalid } from '../helpers/sat-tools.js';

describe('credit notes: POST /v1/qrs/invoices/credit-notes', function () {
  this.timeout(90_000);
  let account: BootstrapResult;
  let events: Record<'stamp' | 'email' | 'cancel', QueueEvents>;
  let closeEvents: () => Promise<void>;

  before(async () => {
    account = await harness().bootstrap();
    ({ events, close: closeEvents } = await queueEventsOf('stamp', 'email', 'cancel'));
  });
  after(() => closeEvents());

  const asMerchant = () => ({ 'X-API-Key': account.apiKey });
  const db = () => harness().deps.db;
  const credit = (related: { uuid: string; amount: number }[], extra: Record<string, unknown> = {}, headers: Record<string, string> = asMerchant()) =>
    call('POST', '/v1/qrs/invoices/credit-notes', { headers, body: { related, sat_payment_form: '03', sat_payment_method: 'PUE', ...extra } });

  /** A stamped invoice of the 302.32 sample sale. */
  async function invoice(): Promise<{ id: string; uuid: string }> {
    const link = await newQrLink(account);
    await confirmReviewed(link);
    await stamped(events.stamp, link.qrId);
    return db()('invoices').where({ transaction_id: link.qrId }).first('id', 'uuid');
  }

  async function stampedCreditNote(id: string): Promise<{ status: string; uuid: string; total: number; xml: string }> {
    const job = await harness().producers.queue('stamp').getJob(jobId.stampInvoice(id));
    const { pacAttempts, pacTimeoutMs } = harness().deps.config;
    await job!.waitUntilFinished(events.stamp, pacAttempts * pacTimeoutMs + 10_000);
    const seen = await call('GET', `/v1/qrs/invoices/credit-notes/${id}`, { headers: asMerchant() });
    const xml = await call('GET', `/v1/qrs/invoices/uuid/${seen.body.uuid}/xml`, { headers: asMerchant() });
    return { ...seen.body, xml: Buffer.from(xml.body.content, 'base64').toString('utf8') };
  }

  it("credits part of an invoice: a type E CFDI related with 01, valid against SAT's XSD, with its PDF e-mailed to the buyer", async () => {
    const original = await invoice();
    const res = await credit([{ uuid: original.uuid.toLowerCase(), amount: 116 }], { description: 'Devolución de mercancía' });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    expect(res.body).to.include({ type: 'E', status: 'STAMPING', uuid: null });
    expect(res.headers.get('location')).to.equal(`/v1/qrs/invoices/credit-notes/${res.body.id}`);

    const note = await stampedCreditNote(res.body.id);
    expect(note.status).to.equal('ACTIVE');
    expect(note.total).to.be.closeTo(116, 0.02);
    expect(note.xml).to.contain('TipoDeComprobante="E"').and.contain('MetodoPago="PUE"').and.contain('FormaPago="03"').and.contain('UsoCFDI="G02"');
    expect(note.xml).to.match(new RegExp(`<cfdi:CfdiRelacionados TipoRelacion="01"><cfdi:CfdiRelacionado UUID="${original.uuid}"/>`));
    expect(note.xml).to.contain('ClaveProdServ="84111506"').and.contain('Devolución de mercancía: Gasolina regular');
    const dir = mkdtempSync(join(tmpdir(), 'credit-note-'));
    writeFileSync(join(dir, 'e.xml'), note.xml);
    expect(await xsdInvalid([join(dir, 'e.xml')])).to.equal('');
    expect(cadenaOriginal(parseXml(note.xml))).to.equal(await satCadena(join(dir, 'e.xml')));

    await (await harness().producers.queue('email').getJob(jobId.emailInvoice(res.body.id)))!.waitUntilFinished(events.email, 30_000);
    const mail = harness().smtp.messages.find((m) => m.attachment(`${note.uuid}.xml`));
    expect(mail!.headers.get('subject')).to.match(/^Tu nota de crédito de /);
  });

  it("never credits more than an invoice's total, also with five credit notes at once", async () => {
    const original = await invoice();
    const answers = await Promise.all(Array.from({ length: 5 }, () => credit([{ uuid: original.uuid, amount: 100 }])));
    expect(answers.map((a) => a.status).sort()).to.deep.equal([202, 202, 202, 422, 422]);
    const refused = answers.find((a) => a.status === 422)!;
    expectError(refused, 422, 'credit_note_invalid');
    expect(refused.body.error.details[0]).to.include({ field: 'related[0].amount', code: 'exceeds_invoice' });
    const credited = await db()('credit_allocations').where({ invoice_id: original.id }).sum({ total: 'amount' }).first();
    expect(Number(credited?.total)).to.be.at.most(302.32);
    expectError(await credit([{ uuid: original.uuid, amount: 2.3 }]), 422, 'credit_note_invalid');
  });

  it('refuses unknown or foreign invoices, form 99 and a bad body, and writes nothing', async () => {
    const original = await invoice();
    const before = await db()('invoices').where({ cfdi_type: 'E' }).count({ n: '*' }).first();
    const unknown = await credit([{ uuid: '00000000-0000-4000-8000-000000000000', amount: 1 }]);
    expectError(unknown, 422, 'credit_note_invalid');
    expect(unknown.body.error.details[0]).to.include({ field: 'related[0].uuid', code: 'not_found' });
    const other = await harness().bootstrap();
    expectError(await credit([{ uuid: original.uuid, amount: 1 }], {}, { 'X-API-Key': other.apiKey }), 422, 'credit_note_invalid');
    expect((await credit([{ uuid: original.uuid, amount: 1 }], { sat_payment_form: '99' })).body.error.details[0]).to.include({ field: 'sat_payment_form', code: 'not_allowed' });
    expectError(await credit([{ uuid: original.uuid, amount: 1 }], { sat_payment_method: 'PPD' }), 400, 'validation_failed');
    expectError(await credit([]), 400, 'validation_failed');
    expectError(await credit([{ uuid: original.uuid, amount: 0 }]), 400, 'validation_failed');
    expectError(await credit([{ uuid: original.uuid, amount: 1 }], {}, {}), 401, 'unauthorized');
    expect(await db()('invoices').where({ cfdi_type: 'E' }).count({ n: '*' }).first()).to.deep.equal(before);
  });

  it('an invoice with a live credit note cannot be cancelled until the credit note is', async () => {
    const original = await invoice();
    const created = await credit([{ uuid: original.uuid, amount: 50 }]);
    const note = await stampedCreditNote(created.body.id);
    expectError(await call('DELETE', `/v1/qrs/invoices/${original.uuid}`, { headers: asMerchant(), body: { motive: '02' } }), 409, 'related_cfdis_active');

    const cancelNote = await call('DELETE', `/v1/qrs/invoices/${note.uuid}`, { headers: asMerchant(), body: { motive: '02' } });
    expect(cancelNote.status, JSON.stringify(cancelNote.body)).to.equal(202);
    expect(cancelNote.body).to.include({ acceptance: 'NOT_REQUIRED', acceptance_reason: 'not_income' });
    const row = await db()('invoice_cancellations').where({ invoice_id: created.body.id }).first('id');
    await (await harness().producers.queue('cancel').getJob(jobId.cancelInvoice(row.id)))!.waitUntilFinished(events.cancel, 30_000);
    expect((await call('GET', `/v1/qrs/invoices/credit-notes/${created.body.id}`, { headers: asMerchant() })).body.status).to.equal('CANCELLED');
    expect((await call('DELETE', `/v1/qrs/invoices/${original.uuid}`, { headers: asMerchant(), body: { motive: '02' } })).status).to.equal(202);
  });
});
