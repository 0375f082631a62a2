import { expect } from 'chai';
import { PacCredentialsRejected, PacThrottled, PacUnavailable } from '../../shared/adapters/pac/pac-client.js';
import { retryAfterMs } from '../../shared/adapters/pac/sw-pac-client.js';
import { jobId } from '../../shared/platform/jobs.js';
import { pauseFor } from '../../workers/pause-on-pac.js';
import { confirmReviewed, newQrLink, queueEvents, stamped } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';

describe('the PAC throttling the account (429): the stamp queue pauses for its Retry-After, no attempt spent (issue #40)', function () {
  this.timeout(60_000);

  it('reads Retry-After as seconds or as an HTTP date; nothing readable is no figure', () => {
    const now = Date.parse('2026-11-28T22:00:00Z');
    expect(retryAfterMs('3', now)).to.equal(3000);
    expect(retryAfterMs('Sat, 28 Nov 2026 22:00:10 GMT', now)).to.equal(10_000);
    expect(retryAfterMs('Sat, 28 Nov 2026 21:59:00 GMT', now)).to.equal(0);
    expect(retryAfterMs(null, now)).to.equal(undefined);
    expect(retryAfterMs('soon', now)).to.equal(undefined);
  });

  it('pauses for the Retry-After within 1 s and 5 min, PAC_BACKOFF_MS without one; refused credentials as before; an outage not at all', () => {
    const pauses = { credentialsMs: 30_000, throttledMs: 2000 };
    expect(pauseFor(new PacThrottled('429', 7000), pauses)).to.equal(7000);
    expect(pauseFor(new PacThrottled('429', 0), pauses)).to.equal(1000);
    expect(pauseFor(new PacThrottled('429', 3_600_000), pauses)).to.equal(300_000);
    expect(pauseFor(new PacThrottled('429', undefined), pauses)).to.equal(2000);
    expect(pauseFor(new PacCredentialsRejected('token rejected', 'AU2000'), pauses)).to.equal(30_000);
    expect(pauseFor(new PacUnavailable('503'), pauses)).to.equal(undefined);
  });

  it('a confirmation whose PAC answers 429 five times running is stamped once, its own job’s attempts unspent (PAC_ATTEMPTS is 4)', async () => {
    const h = harness();
    const account = await h.bootstrap();
    const events = await queueEvents('stamp');
    const link = await newQrLink(account);
    const callsBefore = h.pac.calls.length;
    const throttledLines = () => h.logs.filter((line) => line.includes('PAC throttled: queue paused')).length;
    const linesBefore = throttledLines();
    h.pac.script(...Array.from({ length: 5 }, () => ({ kind: 'status' as const, status: 429, retryAfter: '1' })));
    expect((await confirmReviewed(link)).status).to.equal(202);

    expect(await stamped(events, link.qrId)).to.include({ outcome: 'stamped' });
    const invoice = (await h.deps.db('invoices').where({ transaction_id: link.qrId }).first('id', 'status')) as { id: string; status: string };
    expect(invoice.status).to.equal('ACTIVE');
    const outcomes = h.pac.calls.slice(callsBefore).map((c) => c.outcome);
    expect(outcomes.filter((o) => o.endsWith('status 429'))).to.have.length(5);
    expect(outcomes.filter((o) => o === 'stamped')).to.have.length(1);
    // The batch's call was the invoice's first attempt; its own job was sent back four times and never failed.
    const own = await h.producers.queue('stamp').getJob(jobId.stampInvoice(invoice.id));
    expect(own?.attemptsMade ?? 0).to.be.at.most(1);
    expect(throttledLines() - linesBefore).to.equal(4);
  });
});
