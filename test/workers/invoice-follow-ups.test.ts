import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { jobId } from '../../shared/platform/jobs.js';
import { sweepInvoiceFollowUpsJob } from '../../workers/sweep-invoice-follow-ups.js';
import { confirmReviewed, emailed, newQrLink, queueEventsOf, stamped } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';

/**
 * Issue #8, "kill -9 between commit and enqueue": a worker that dies after the stamp is committed and before
 * the e-mail job is queued leaves an invoice without its e-mail (and the PDF the e-mail carries) and no job to
 * make it. The sweep, driven from PostgreSQL, queues it again.
 */
describe('sweep-invoice-follow-ups', function () {
  this.timeout(90_000);
  let account: BootstrapResult;
  let queues: Awaited<ReturnType<typeof queueEventsOf<'stamp' | 'email'>>>;
  const events = (): Record<'stamp' | 'email', QueueEvents> => queues.events;
  const db = () => harness().deps.db;
  const sweep = () => sweepInvoiceFollowUpsJob(db(), harness().producers, harness().deps.config);
  // Well past STAMP_SWEEP_MS (1 h in tests): one hour exactly can fall in the sweep's own millisecond.
  const longAgo = () => new Date(Date.now() - 2 * 3600_000);

  before(async () => {
    account = await harness().bootstrap();
    queues = await queueEventsOf('stamp', 'email');
  });
  after(() => queues.close());

  const job = (id: string) => harness().producers.queue('email').getJob(jobId.emailInvoice(id));

  /** An invoice stamped and e-mailed by its batch (issue #40): no e-mail job of its own. */
  async function deliveredInvoice(email: string): Promise<string> {
    const link = await newQrLink(account);
    await confirmReviewed(link, { email });
    await stamped(events().stamp, link.qrId);
    const { id } = (await db()('invoices').where({ transaction_id: link.qrId, status: 'ACTIVE' }).first('id')) as { id: string };
    await emailed(events().email, id);
    expect(await job(id)).to.equal(undefined);
    return id;
  }

  it('queues the e-mail, with the PDF it renders, of a stamped invoice whose e-mail job was never queued', async () => {
    const email = `follow-up-${Date.now()}@example.test`;
    const id = await deliveredInvoice(email);
    // What a kill -9 right after recordStamp's commit leaves: ACTIVE, no e-mail, no job.
    await db()('invoices').where({ id }).update({ email_sent_at: null, updated_at: longAgo() });
    const sent = harness().smtp.messages.filter((m) => m.to.includes(email)).length;

    // Effects, not the returned counts: the harness's own scheduled sweep may run at the same moment.
    await sweep();
    await (await job(id))!.waitUntilFinished(events().email, 30_000);
    const row = await db()('invoices').where({ id }).first('uuid', 'pdf_file_key', 'email_sent_at');
    expect(row.email_sent_at).to.be.instanceOf(Date);
    expect(row.pdf_file_key, 'rendered for the mail, not kept').to.equal(null);
    const mails = harness().smtp.messages.filter((m) => m.to.includes(email));
    expect(mails).to.have.length(sent + 1);
    expect(mails.at(-1)!.attachment(`${row.uuid}.pdf`)!.subarray(0, 5).toString()).to.equal('%PDF-');
  });

  it('leaves alone a change younger than STAMP_SWEEP_MS, whose job may be on its way', async () => {
    const id = await deliveredInvoice(`recent-${Date.now()}@example.test`);
    await db()('invoices').where({ id }).update({ email_sent_at: null, updated_at: new Date() });
    await sweep();
    expect(await job(id)).to.equal(undefined);
  });

  it('retries a job that failed by stalling, leaves one that failed otherwise to ops, never re-sends to a refused address', async () => {
    const address = `refused-${Date.now()}@example.test`;
    harness().smtp.failNext(1, { code: 550 });
    const link = await newQrLink(account);
    await confirmReviewed(link, { email: address });
    await stamped(events().stamp, link.qrId);
    const { id } = (await db()('invoices').where({ transaction_id: link.qrId, status: 'ACTIVE' }).first('id')) as { id: string };
    // Refused for good in its batch: recorded, no job of its own.
    await emailed(events().email, id);
    const row = await db()('invoices').where({ id }).first('email_sent_at', 'email_refused_at');
    expect(row.email_sent_at).to.equal(null);
    expect(row.email_refused_at).to.be.instanceOf(Date);

    await db()('invoices').where({ id }).update({ updated_at: longAgo() });
    await sweep();
    expect(await job(id), 'a refused address is not written to again').to.equal(undefined);

    // An operator clears the refusal: the sweep queues the invoice's own job, which the server refuses again.
    harness().smtp.failNext(1, { code: 550 });
    await db()('invoices').where({ id }).update({ email_refused_at: null });
    await sweep();
    const mail = (await job(id))!;
    await mail.waitUntilFinished(events().email, 30_000).catch(() => undefined);
    expect(await mail.getState()).to.equal('failed');

    await db()('invoices').where({ id }).update({ email_refused_at: null, updated_at: longAgo() });
    await sweep();
    expect(await mail.getState(), 'a job failed by its own error stays for ops').to.equal('failed');

    // What BullMQ leaves when the job's worker died twice mid-job: failed, with no retry of its own.
    await harness().redis.hset(`${harness().deps.config.queuePrefix}:email:${mail.id!}`, 'failedReason', 'job stalled more than allowable limit');
    await sweep();
    await mail.waitUntilFinished(events().email, 30_000);
    expect((await db()('invoices').where({ id }).first('email_sent_at')).email_sent_at).to.be.instanceOf(Date);
    expect(harness().smtp.messages.filter((m) => m.to.includes(address))).to.have.length(1);
  });
});
