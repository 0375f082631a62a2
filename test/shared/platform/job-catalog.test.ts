import { expect } from 'chai';
import { JOBS, jobId, type JobName } from '../../../shared/platform/jobs.js';
import { jobOptions } from '../../../shared/platform/queues.js';
import { harness } from '../../helpers/harness.js';

describe('the job catalog (shared/platform/jobs.ts, issue #20)', () => {
  const settings = () => harness().deps.config;

  it('gives each add its id and options: one stamp per invoice with the PAC retries, a resend to another address its own job, a bucket its delay', () => {
    expect(jobOptions('stamp-invoice', { invoiceId: 'inv_1' }, settings())).to.deep.include({
      jobId: jobId.stampInvoice('inv_1'),
      attempts: settings().pacAttempts,
      backoff: { type: 'exponential', delay: settings().pacBackoffMs },
    });
    // A batch of confirmations (issue #40) by its first invoice; an invoice the PAC does not answer goes on to its own job, so the batch's retries are few.
    expect(jobOptions('stamp-invoices', { invoiceIds: ['inv_1', 'inv_2'] }, settings())).to.deep.include({ jobId: jobId.stampInvoices('inv_1'), attempts: 3 });
    expect(jobOptions('email-invoice', { invoiceId: 'inv_1' }, settings()).jobId).to.equal(jobId.emailInvoice('inv_1'));
    expect(jobOptions('email-invoice', { invoiceId: 'inv_1', to: 'a@example.test' }, settings())).to.not.have.property('jobId');
    expect(jobOptions('expire-due-qrs', { dueAt: 1_000 }, settings(), 999_000)).to.include({ jobId: jobId.expireDue(1_000), delay: 1_000 });
    expect(jobOptions('expire-due-qrs', { dueAt: 1_000 }, settings(), 2_000_000).delay).to.equal(0);
  });

  it('schedules exactly the sweeps: every job with a period has a fixed id, and no per-item job has a period', () => {
    const scheduled = (Object.keys(JOBS) as JobName[]).filter((name) => JOBS[name].every);
    expect(scheduled).to.have.members([
      'plan-expiries',
      'sweep-expired-qrs',
      'sweep-lost-syncs',
      'sweep-stamping',
      'settle-offline-claims',
      'sweep-invoice-follow-ups',
      'poll-cancellations',
      'dispatch-webhooks',
      'issue-global-invoices',
      'announce-expiring-csds',
      'keep-partitions',
      'sweep-invoice-exports',
    ]);
    for (const name of scheduled) {
      expect(JOBS[name].id?.({} as never), name).to.be.a('string');
      expect(JOBS[name].every!(settings()), name).to.be.above(0);
    }
  });
});
