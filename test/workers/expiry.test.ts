import { expect } from 'chai';
import { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { jobId } from '../../shared/platform/jobs.js';
import { expiryBucket } from '../../shared/domain/expiry-buckets.js';
import { planExpiriesJob } from '../../workers/plan-expiries.js';
import { harness } from '../helpers/harness.js';
import { runJob } from '../helpers/run-job.js';
import { call } from '../helpers/http.js';
import { postQr, qrBody } from '../helpers/qr-body.js';

describe('QR expiry', () => {
  let account: BootstrapResult;
  let events: QueueEvents;
  before(async () => {
    account = await harness().bootstrap();
    const cfg = harness().deps.config;
    events = new QueueEvents('expiry', { connection: { url: cfg.redisUrl }, prefix: cfg.queuePrefix });
    await events.waitUntilReady();
  });
  after(async () => {
    await events.close();
  });

  const status = async (qrId: string) => (await call('GET', `/v1/qrs/${qrId}`, { headers: { 'X-API-Key': account.apiKey } })).body.status;

  it("a QR due soon schedules its second's expiry bucket, which moves it to EXPIRED at expires_at", async () => {
    const expiresAt = new Date(Date.now() + 1500);
    const qr = (await postQr(account, qrBody(account.storeUid, { expires_at: expiresAt.toISOString() }))).body;
    expect(qr.status).to.equal('PENDING');
    const job = await harness()
      .producers.queue('expiry')
      .getJob(jobId.expireDue(expiryBucket(new Date(qr.expires_at))));
    expect(job, 'delayed expiry bucket').to.not.equal(undefined);
    await job!.waitUntilFinished(events, 10_000);
    // Its bucket, or an earlier one that ran late and took every QR due by then, expired it.
    expect(await status(qr.qr_id)).to.equal('EXPIRED');
    const row = await harness().deps.db('qr_transactions').where({ id: qr.qr_id }).first('expired_at', 'qr_png');
    expect(row.expired_at).to.be.instanceOf(Date);
    // A finished QR keeps no image; it is the same PNG when read again, through the API and its signed URL.
    expect(row.qr_png).to.equal(null);
    const again = (await call('GET', `/v1/qrs/${qr.qr_id}`, { headers: { 'X-API-Key': account.apiKey } })).body;
    expect(again.qr_base64).to.equal(qr.qr_base64);
  });

  it('a finished QR keeps no image in PostgreSQL, and its signed image URL serves the same PNG', async () => {
    const qr = (await postQr(account, qrBody(account.storeUid))).body;
    const db = harness().deps.db;
    expect((await db('qr_transactions').where({ id: qr.qr_id }).first('qr_png')).qr_png).to.be.instanceOf(Buffer);
    await db('qr_transactions').where({ id: qr.qr_id }).update({ status: 'CANCELLED' });
    expect((await db('qr_transactions').where({ id: qr.qr_id }).first('qr_png')).qr_png).to.equal(null);
    const url = new URL(qr.qr_url as string);
    const image = await call('GET', url.pathname + url.search);
    expect(image.status).to.equal(200);
    expect(`data:image/png;base64,${(image.body as Buffer).toString('base64')}`).to.equal(qr.qr_base64);
  });

  it('a QR due later costs Redis nothing until the planner schedules its bucket from PostgreSQL', async () => {
    const producers = harness().producers;
    const qr = (await postQr(account, qrBody(account.storeUid, { expires_at: new Date(Date.now() + 10 * 60_000).toISOString() }))).body;
    const bucket = jobId.expireDue(expiryBucket(new Date(qr.expires_at)));
    expect(await producers.queue('expiry').getJob(bucket), 'no job yet').to.equal(undefined);
    // Ten minutes from now falls in the planner's window when it runs nine minutes from now.
    const planned = await planExpiriesJob(harness().deps.db, producers, new Date(Date.now() + 9 * 60_000));
    expect(planned.buckets).to.be.at.least(1);
    const job = await producers.queue('expiry').getJob(bucket);
    expect(await job!.getState()).to.equal('delayed');
    await job!.remove();
  });

  it('the sweep expires QRs whose job was lost, leaves invoiced ones alone, and never reactivates', async () => {
    const db = harness().deps.db;
    const lost = (await postQr(account, qrBody(account.storeUid))).body;
    const invoiced = (await postQr(account, qrBody(account.storeUid))).body;
    const open = (await postQr(account, qrBody(account.storeUid))).body;
    await db('qr_transactions')
      .whereIn('id', [lost.qr_id, invoiced.qr_id])
      .update({ expires_at: new Date(Date.now() - 60_000) });
    await db('qr_transactions').where({ id: invoiced.qr_id }).update({ status: 'INVOICED' });

    const result = await runJob('sweep-expired-qrs', {}, events, 10_000);
    expect(result.expired).to.be.greaterThanOrEqual(1);
    expect(await status(lost.qr_id)).to.equal('EXPIRED');
    expect(await status(invoiced.qr_id)).to.equal('INVOICED');
    expect(await status(open.qr_id)).to.equal('PENDING');

    // A late bucket for an already expired QR changes nothing.
    const late = await harness().producers.add('expire-due-qrs', { dueAt: 1 }, { removeOnComplete: true });
    await late.waitUntilFinished(events, 10_000);
    expect(await status(lost.qr_id)).to.equal('EXPIRED');
    expect(await status(open.qr_id)).to.equal('PENDING');
  });

  it('registers the periodic sweep and the expiry planner as job schedulers', async () => {
    const schedulers = await harness().producers.queue('expiry').getJobSchedulers();
    expect(schedulers.map((s) => s.key)).to.include.members([jobId.sweepExpired, jobId.planExpiries]);
  });
});
