import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { jobId } from '../../shared/platform/jobs.js';
import { BUYER, confirmReviewed, emailed, newQrLink, queueEvents, stamped } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';

type Line = Record<string, unknown>;

describe('one log line per job outcome: an operator follows a sale by qr_id', function () {
  this.timeout(90_000);
  let account: BootstrapResult;
  let events: Record<'stamp' | 'email' | 'cancel', QueueEvents>;
  before(async () => {
    account = await harness().bootstrap();
    events = { stamp: await queueEvents('stamp'), email: await queueEvents('email'), cancel: await queueEvents('cancel') };
  });
  after(async () => {
    await Promise.all(Object.values(events).map((e) => e.close()));
  });

  const linesOf = (qrId: string): Line[] =>
    harness()
      .logs.flatMap((chunk) => chunk.split('\n'))
      .filter((l) => l.includes(qrId))
      .map((l) => JSON.parse(l) as Line);
  const outcome = (l: Line) => [l.job, l.outcome ?? l.status ?? l.recipient ?? '', l.code ?? ''].join(' ').trim();

  it('render, PAC refusal with its code, stamp and e-mail each log one line with the qr_id; no personal data', async () => {
    const link = await newQrLink(account);
    expect((await confirmReviewed(link, { name: 'UNIVERSIDAD ROBOTICA' })).status).to.equal(202);
    await stamped(events.stamp, link.qrId);
    expect((await confirmReviewed(link)).status).to.equal(202);
    await stamped(events.stamp, link.qrId);
    const invoice = await harness().deps.db('invoices').where({ transaction_id: link.qrId, status: 'ACTIVE' }).first('id', 'uuid');
    await emailed(events.email, invoice.id);

    // A confirmation's stamp is a batch job that sends its buyer's mail too (issue #40): one line for this sale each, the mail's outcome on the stamp's.
    const jobs = linesOf(link.qrId).filter((l) => l.msg === 'job done');
    expect(jobs.map(outcome)).to.deep.equal(['render-qr', 'stamp-invoices refused CFDI40145', 'stamp-invoices stamped']);
    expect(jobs[2]).to.include({ email: 'sent', invoice_id: invoice.id });
    for (const line of jobs) expect(line.qr_id).to.equal(link.qrId);
    expect(jobs.slice(2).every((l) => l.uuid === invoice.uuid)).to.equal(true);
    const all = JSON.stringify(linesOf(link.qrId));
    for (const personal of [BUYER.rfc, BUYER.email, 'UNIVERSIDAD', BUYER.postal_code]) expect(all, personal).to.not.include(personal);
  });

  it('a refused cancellation logs its PAC code (CA205 and the like)', async () => {
    const link = await newQrLink(account);
    await confirmReviewed(link);
    await stamped(events.stamp, link.qrId);
    const invoice = await harness().deps.db('invoices').where({ transaction_id: link.qrId, status: 'ACTIVE' }).first('id', 'uuid');
    harness().pac.scriptCancel({ kind: 'refuse', code: 'CA205', message: 'UUID no existe' });
    expect((await call('DELETE', `/v1/qrs/invoices/${invoice.uuid}`, { headers: { 'X-API-Key': account.apiKey }, body: { motive: '02' } })).status).to.be.below(300);
    const row = await harness().deps.db('invoice_cancellations').where({ invoice_id: invoice.id }).first('id');
    await (await harness().producers.queue('cancel').getJob(jobId.cancelInvoice(row.id)))!.waitUntilFinished(events.cancel, 30_000);
    const line = linesOf(link.qrId).find((l) => l.job === 'cancel-invoice');
    expect(line).to.deep.include({ msg: 'job done', outcome: 'refused', code: 'CA205', uuid: invoice.uuid, cancellation_id: row.id });
  });
});
