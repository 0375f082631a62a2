import { expect } from 'chai';
import { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { jobId } from '../../shared/jobs.js';
import { harness } from '../helpers/harness.js';
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

  it('moves a QR to EXPIRED when its delayed job runs at expires_at', async () => {
    const qr = (await postQr(account, qrBody(account.storeUid, { expires_at: new Date(Date.now() + 1500).toISOString() }))).body;
    expect(qr.status).to.equal('PENDING');
    const job = await harness().producers.queue('expiry').getJob(jobId.expireQr(qr.qr_id));
    expect(job, 'delayed expiry job').to.not.equal(undefined);
    expect(await job!.getState()).to.equal('delayed');
    const result = await job!.waitUntilFinished(events, 10_000);
    expect(result).to.deep.equal({ expired: true });
    expect(await status(qr.qr_id)).to.equal('EXPIRED');
    const row = await harness().deps.db('qr_transactions').where({ id: qr.qr_id }).first('expired_at', 'updated_at');
    expect(row.expired_at).to.be.instanceOf(Date);
  });

  it('the sweep expires QRs whose job was lost, leaves invoiced ones alone, and never reactivates', async () => {
    const db = harness().deps.db;
    const lost = (await postQr(account, qrBody(account.storeUid))).body;
    const invoiced = (await postQr(account, qrBody(account.storeUid))).body;
    const open = (await postQr(account, qrBody(account.storeUid))).body;
    await harness().producers.queue('expiry').remove(jobId.expireQr(lost.qr_id));
    await db('qr_transactions').whereIn('id', [lost.qr_id, invoiced.qr_id]).update({ expires_at: new Date(Date.now() - 60_000) });
    await db('qr_transactions').where({ id: invoiced.qr_id }).update({ status: 'INVOICED' });

    const sweep = await harness().producers.add('sweep-expired-qrs', {}, { removeOnComplete: true });
    const result = (await sweep.waitUntilFinished(events, 10_000)) as { expired: number };
    expect(result.expired).to.be.greaterThanOrEqual(1);
    expect(await status(lost.qr_id)).to.equal('EXPIRED');
    expect(await status(invoiced.qr_id)).to.equal('INVOICED');
    expect(await status(open.qr_id)).to.equal('PENDING');

    // A late job for an already expired QR changes nothing.
    const late = await harness().producers.add('expire-qr', { qrId: lost.qr_id }, { removeOnComplete: true });
    expect(await late.waitUntilFinished(events, 10_000)).to.deep.equal({ expired: false });
    expect(await status(lost.qr_id)).to.equal('EXPIRED');
  });

  it('registers the periodic sweep as a job scheduler', async () => {
    const schedulers = await harness().producers.queue('expiry').getJobSchedulers();
    expect(schedulers.map((s) => s.key)).to.include(jobId.sweepExpired);
  });
});
