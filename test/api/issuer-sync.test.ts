import { Job, type QueueEvents } from 'bullmq';
import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { QUEUES } from '../../shared/platform/jobs.js';
import { queueEvents } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';
import { postQr, qrBody } from '../helpers/qr-body.js';

const RFC = 'EKU9003173C9';

describe('POST /v1/qrs/issuers/{issuerId}/synchronize (CSF)', function () {
  // A test may wait for a synchronization through all its attempts (see settled()).
  this.timeout(60_000);
  let events: QueueEvents;
  before(async () => {
    events = await queueEvents(QUEUES.csfSync);
  });
  after(() => events.close());

  const as = (a: BootstrapResult) => ({ Authorization: `Bearer ${a.accessToken}` });
  const sync = (a: BootstrapResult) => call('POST', `/v1/qrs/issuers/${a.issuerId}/synchronize`, { headers: as(a) });
  const issuer = async (a: BootstrapResult) => (await call('GET', `/v1/qrs/issuers/${a.issuerId}`, { headers: as(a) })).body;

  /** Waits for the job's final outcome (completed, or failed after its last attempt): an event, not a sleep. */
  async function settled(jobId: string): Promise<void> {
    const job = await Job.fromId(harness().producers.queue(QUEUES.csfSync), jobId);
    expect(job, `job ${jobId}`).to.not.equal(undefined);
    // A failed job ends the wait as well as a completed one; the bound allows every attempt to time out.
    const { csfAttempts, csfTimeoutMs } = harness().deps.config;
    await job!.waitUntilFinished(events, csfAttempts * csfTimeoutMs + 10_000).catch(() => undefined);
    expect(await job!.getState(), `job ${jobId}`).to.be.oneOf(['completed', 'failed']);
  }

  function callsFor(from: number) {
    return harness()
      .csf.calls.slice(from)
      .filter((c) => c.rfc === RFC).length;
  }

  it('answers 202 at once and updates legal name, regime and zip from SAT', async () => {
    const account = await harness().bootstrap();
    harness().csf.script(RFC, { kind: 'ok', data: { legalName: 'ESCUELA  KEMPER URGATE NUEVA ', zip: '42502' } });
    const res = await sync(account);
    expect(res.status).to.equal(202);
    expect(res.body).to.include({ issuerId: account.issuerId, status: 'PENDING' });
    await settled(res.body.jobId);
    const after = await issuer(account);
    expect(after).to.deep.include({ businessName: 'ESCUELA KEMPER URGATE NUEVA', zip: '42502', taxRegime: { code: '601', description: 'General de Ley Personas Morales' } });
    expect(after.synchronization).to.deep.include({ status: 'SUCCEEDED', jobId: res.body.jobId, attempts: 1, error: null });
    expect(after.synchronization.finishedAt).to.be.a('string');
  });

  it("the new legal name is in the next QR at once: the API's cached key principal (which carries it) dies with the sync", async () => {
    const account = await harness().bootstrap();
    // Two sales: the first may find no generation yet in a fresh Redis (and caches nothing), the second caches.
    for (let i = 0; i < 2; i++) expect((await postQr(account, qrBody(account.storeUid))).status).to.equal(201);
    harness().csf.script(RFC, { kind: 'ok', data: { legalName: 'ESCUELA KEMPER URGATE RENOVADA' } });
    await settled((await sync(account)).body.jobId);
    const sale = await postQr(account, qrBody(account.storeUid));
    expect(sale.status).to.equal(201);
    expect(sale.body.issuer_name).to.equal('ESCUELA KEMPER URGATE RENOVADA');
  });

  it('retries a 5xx and a timeout with backoff, then succeeds', async () => {
    const account = await harness().bootstrap();
    const from = harness().csf.calls.length;
    // The second answer comes well after the client's timeout.
    harness().csf.script(RFC, { kind: 'status', status: 503 }, { kind: 'slow', ms: 4 * harness().deps.config.csfTimeoutMs }, { kind: 'ok' });
    const res = await sync(account);
    await settled(res.body.jobId);
    expect((await issuer(account)).synchronization).to.deep.include({ status: 'SUCCEEDED', attempts: 3 });
    expect(callsFor(from)).to.equal(3);
  });

  it('ends FAILED with the reason after the last attempt when the answers are garbage', async () => {
    const account = await harness().bootstrap();
    const before = await issuer(account);
    harness().csf.script(RFC, { kind: 'garbage' }, { kind: 'garbage' }, { kind: 'garbage' });
    const res = await sync(account);
    await settled(res.body.jobId);
    const after = await issuer(account);
    expect(after.synchronization).to.deep.include({ status: 'FAILED', attempts: 3 });
    expect(after.synchronization.error).to.match(/unreadable answer/);
    expect(after.businessName).to.equal(before.businessName);
  });

  it('does not retry when SAT does not know the RFC and idCIF', async () => {
    const account = await harness().bootstrap();
    const from = harness().csf.calls.length;
    harness().csf.script(RFC, { kind: 'status', status: 404 });
    const res = await sync(account);
    await settled(res.body.jobId);
    expect((await issuer(account)).synchronization).to.deep.include({ status: 'FAILED', attempts: 1 });
    expect(callsFor(from)).to.equal(1);
  });

  it('joins the synchronization already running instead of starting another', async () => {
    const account = await harness().bootstrap();
    const from = harness().csf.calls.length;
    // SAT's answer waits for the second request, so the first synchronization cannot have finished before it.
    let release!: () => void;
    harness().csf.script(RFC, { kind: 'held', until: new Promise<void>((resolve) => (release = resolve)) });
    const a = await sync(account);
    const b = await sync(account).finally(release);
    expect(a.status).to.equal(202);
    expect(b.status).to.equal(202);
    expect(b.body.jobId).to.equal(a.body.jobId);
    await settled(a.body.jobId);
    expect(callsFor(from)).to.equal(1);
    const again = await sync(account);
    expect(again.body.jobId).to.not.equal(a.body.jobId);
    await settled(again.body.jobId);
  });

  it("is scoped to the account: another account's issuer is 404 and nothing is enqueued", async () => {
    const [mine, theirs] = [await harness().bootstrap(), await harness().bootstrap()];
    const res = await call('POST', `/v1/qrs/issuers/${mine.issuerId}/synchronize`, { headers: as(theirs) });
    expectError(res, 404, 'issuer_not_found');
    expect((await issuer(mine)).synchronization).to.equal(null);
  });
});
