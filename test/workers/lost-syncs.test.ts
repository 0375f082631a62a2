import type { Job, QueueEvents } from 'bullmq';
import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { jobId, QUEUES } from '../../shared/platform/jobs.js';
import { recordSyncProgress, recordSyncRequested } from '../../shared/repositories/issuers.js';
import { SYNC_INTERRUPTED, sweepLostSyncsJob } from '../../workers/sweep-lost-syncs.js';
import { queueEvents } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';

const RFC = 'EKU9003173C9';

/**
 * Issue #8, "CSF hanging … no worker stuck": sync-issuer records its own outcome, so a synchronization whose
 * job ends without running (BullMQ fails a job that stalled twice without calling its handler) or vanishes
 * (Redis lost it) said RUNNING or PENDING forever. The sweep, driven from PostgreSQL, records it FAILED.
 */
describe('sweep-lost-syncs', function () {
  this.timeout(60_000);
  let events: QueueEvents;
  before(async () => {
    events = await queueEvents(QUEUES.csfSync);
  });
  after(() => events.close());

  const db = () => harness().deps.db;
  const queue = () => harness().producers.queue(QUEUES.csfSync);
  const sweep = () => sweepLostSyncsJob(db(), harness().producers);
  const as = (a: BootstrapResult) => ({ Authorization: `Bearer ${a.accessToken}` });
  const synchronization = async (a: BootstrapResult) => (await call('GET', `/v1/qrs/issuers/${a.issuerId}`, { headers: as(a) })).body.synchronization;

  /** A sync-issuer job as the API enqueues it, held back (delayed) so no worker runs it before the test says so. */
  async function heldSyncJob(a: BootstrapResult, suffix: string): Promise<Job> {
    const job = await queue().add(
      'sync-issuer',
      { issuerId: a.issuerId },
      {
        jobId: `${jobId.syncIssuer(a.issuerId)}.${suffix}`,
        deduplication: { id: jobId.syncIssuer(a.issuerId) },
        delay: 3600_000,
        attempts: 3,
      },
    );
    await recordSyncRequested(db(), a.issuerId, job.id!, new Date());
    return job;
  }

  it('records FAILED for a synchronization whose job failed by stalling twice, and a new click starts one that succeeds', async () => {
    const account = await harness().bootstrap();
    const job = await heldSyncJob(account, 'stalled');
    // What a worker killed mid-call leaves in PostgreSQL ...
    await recordSyncProgress(db(), account.issuerId, { jobId: job.id!, status: 'RUNNING', attempts: 1, now: new Date() });
    // ... and what BullMQ leaves in Redis when it happened twice: the next worker to take the job fails it
    // at once ("job stalled more than allowable limit"), without running sync-issuer.
    await harness().redis.hset(`${harness().deps.config.queuePrefix}:${QUEUES.csfSync}:${job.id!}`, 'defa', 'job stalled more than allowable limit');
    const calls = harness().csf.calls.length;
    await job.promote();
    await job.waitUntilFinished(events, 30_000).catch(() => undefined);
    expect(await job.getState()).to.equal('failed');
    expect(harness().csf.calls.length, 'sync-issuer did not run').to.equal(calls);
    // Before the sweep this stayed RUNNING, with no job left to end it (the harness's scheduled sweep may
    // already have recorded it: the same outcome).
    await sweep();
    const after = await synchronization(account);
    expect(after).to.deep.include({ status: 'FAILED', jobId: job.id, attempts: 1, error: SYNC_INTERRUPTED.stalled });
    expect(after.finishedAt).to.be.a('string');

    // The deduplication key ended with the job: the owner's next click is a new synchronization.
    const again = await call('POST', `/v1/qrs/issuers/${account.issuerId}/synchronize`, { headers: as(account) });
    expect(again.status).to.equal(202);
    expect(again.body.jobId).to.not.equal(job.id);
    const next = (await queue().getJob(again.body.jobId))!;
    await next.waitUntilFinished(events, 30_000);
    expect(await synchronization(account)).to.deep.include({ status: 'SUCCEEDED', jobId: again.body.jobId, error: null });
  });

  it('records FAILED for a synchronization whose job Redis lost', async () => {
    const account = await harness().bootstrap();
    const job = await heldSyncJob(account, 'lost');
    await job.remove();
    expect(await synchronization(account)).to.deep.include({ status: 'PENDING', jobId: job.id });
    await sweep();
    expect(await synchronization(account)).to.deep.include({ status: 'FAILED', jobId: job.id, error: SYNC_INTERRUPTED.lost });
  });

  it('leaves alone a synchronization whose job is waiting, retrying or running', async () => {
    const waiting = await harness().bootstrap();
    const waitingJob = await heldSyncJob(waiting, 'waiting');
    const running = await harness().bootstrap();
    // SAT's answer is held until the sweep has looked: the job is active all along.
    let release!: () => void;
    harness().csf.script(RFC, { kind: 'held', until: new Promise<void>((resolve) => (release = resolve)) });
    const click = await call('POST', `/v1/qrs/issuers/${running.issuerId}/synchronize`, { headers: as(running) });
    const runningJob = (await queue().getJob(click.body.jobId))!;
    try {
      for (let i = 0; i < 100 && (await synchronization(running)).status !== 'RUNNING'; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await synchronization(running)).to.deep.include({ status: 'RUNNING' });
      await sweep();
      expect(await synchronization(waiting)).to.deep.include({ status: 'PENDING', jobId: waitingJob.id });
      expect(await synchronization(running)).to.deep.include({ status: 'RUNNING', jobId: runningJob.id });
    } finally {
      release();
      await waitingJob.remove();
    }
    await runningJob.waitUntilFinished(events, 30_000);
    expect(await synchronization(running)).to.deep.include({ status: 'SUCCEEDED' });
  });
});
