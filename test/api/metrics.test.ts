import { randomUUID } from 'node:crypto';
import { Job } from 'bullmq';
import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { QUEUES } from '../../shared/platform/jobs.js';
import { confirmReviewed, newQrLink, queueEventsOf, stamped } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';
import { parseMetrics, sampleValue } from '../helpers/metrics-text.js';
import { postQr, qrBody } from '../helpers/qr-body.js';

const HTTP_COUNT = 'autofactura_http_request_duration_seconds_count';
const JOB_COUNT = 'autofactura_job_duration_seconds_count';

/** A scrape with the configured token, another one, or (null) none. */
function scrape(token: string | null = harness().deps.config.metricsToken) {
  return call('GET', '/metrics', { headers: token === null ? {} : { Authorization: `Bearer ${token}` } });
}

/** The scrape as Prometheus reads it. */
async function metrics(): Promise<string> {
  const res = await scrape();
  expect(res.status).to.equal(200);
  return (res.body as Buffer).toString('utf8');
}

describe('GET /metrics', function () {
  // One test stamps an invoice and one runs a synchronization through all its attempts.
  this.timeout(60_000);
  let account: BootstrapResult;
  let queues: Awaited<ReturnType<typeof queueEventsOf<'stamp' | 'csf-sync'>>>;
  before(async () => {
    account = await harness().bootstrap();
    queues = await queueEventsOf('stamp', 'csf-sync');
  });
  after(() => queues.close());

  it('answers only the metrics token, in Prometheus text, and leaves scrapes out of the request counts', async () => {
    const missing = await scrape(null);
    expectError(missing, 401, 'unauthorized');
    expect(missing.headers.get('www-authenticate')).to.equal('Bearer realm="metrics"');
    expectError(await scrape('not-the-token'), 401, 'unauthorized');
    const res = await scrape();
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    const text = (res.body as Buffer).toString('utf8');
    expect(text).to.include('# TYPE autofactura_http_request_duration_seconds histogram');
    expect(text).to.include('process_cpu_seconds_total');
    expect(text).to.not.include('route="/metrics"');
  });

  it('counts requests by route pattern and status, never by the path with its ids', async () => {
    const created = await postQr(account, qrBody(account.storeUid));
    expect(created.status).to.equal(201);
    const qrId = created.body.qr_id as string;
    const before = await metrics();
    const headers = { 'X-API-Key': account.apiKey };
    for (let i = 0; i < 2; i++) expect((await call('GET', `/v1/qrs/${qrId}`, { headers })).status).to.equal(200);
    expect((await call('GET', '/v1/qrs/tra_nothing_here', { headers })).status).to.equal(404);
    expect((await call('GET', `/v1/qrs/issuers/${account.issuerId}`)).status).to.equal(401); // refused by the router's bearer middleware
    expect((await call('GET', '/no/such/route/here')).status).to.equal(404);

    const after = await metrics();
    const delta = (labels: Record<string, string>) => sampleValue(after, HTTP_COUNT, labels) - sampleValue(before, HTTP_COUNT, labels);
    expect(delta({ method: 'GET', route: '/v1/qrs/:qrId', status: '200' })).to.equal(2);
    expect(delta({ method: 'GET', route: '/v1/qrs/:qrId', status: '404' })).to.equal(1);
    expect(delta({ method: 'GET', route: '/v1/qrs/issuers/:issuerId', status: '401' })).to.equal(1);
    expect(delta({ method: 'GET', route: 'unmatched', status: '404' })).to.equal(1);
    expect(sampleValue(after, 'autofactura_http_request_duration_seconds_bucket', { method: 'GET', route: '/v1/qrs/:qrId', status: '200', le: '+Inf' })).to.equal(
      sampleValue(after, HTTP_COUNT, { method: 'GET', route: '/v1/qrs/:qrId', status: '200' }),
    );
    for (const raw of [qrId, 'tra_nothing_here', account.issuerId, '/no/such/route']) expect(after).to.not.include(raw);
  });

  it('counts an idempotent replay and a key reused with another body', async () => {
    const key = randomUUID();
    const body = qrBody(account.storeUid);
    const before = await metrics();
    expect((await postQr(account, body, key)).status).to.equal(201);
    const replay = await postQr(account, body, key);
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expectError(await postQr(account, { ...body, sale_id: `other-${randomUUID()}` }, key), 409, 'idempotency_key_reused');

    const after = await metrics();
    const route = { route: '/v1/qrs' };
    expect(sampleValue(after, 'autofactura_idempotent_replays_total', route) - sampleValue(before, 'autofactura_idempotent_replays_total', route)).to.equal(1);
    expect(sampleValue(after, 'autofactura_idempotency_conflicts_total', route) - sampleValue(before, 'autofactura_idempotency_conflicts_total', route)).to.equal(1);
    expect(
      sampleValue(after, HTTP_COUNT, { method: 'POST', route: '/v1/qrs', status: '409' }) - sampleValue(before, HTTP_COUNT, { method: 'POST', route: '/v1/qrs', status: '409' }),
    ).to.equal(1);
  });

  it('times a stamp at the PAC and counts the stamp batch job', async () => {
    const okStamp = { operation: 'stamp', outcome: 'ok' };
    const stampJob = { queue: QUEUES.stamp, job_name: 'stamp-invoices', outcome: 'completed' };
    const before = await metrics();
    const link = await newQrLink(account);
    expect((await confirmReviewed(link)).status).to.equal(202);
    expect(await stamped(queues.events.stamp, link.qrId)).to.include({ outcome: 'stamped' });

    const after = await metrics();
    const stamps = (text: string) => sampleValue(text, 'autofactura_pac_request_duration_seconds_count', okStamp);
    expect(stamps(after) - stamps(before)).to.equal(1);
    expect(sampleValue(after, 'autofactura_pac_request_duration_seconds_sum', okStamp)).to.be.greaterThan(0);
    expect(sampleValue(after, JOB_COUNT, stampJob) - sampleValue(before, JOB_COUNT, stampJob)).to.equal(1);
  });

  it('counts every attempt of a synchronization the CSF service keeps failing, and the CSF calls', async () => {
    const { csfAttempts } = harness().deps.config;
    const before = await metrics();
    harness().csf.script('EKU9003173C9', ...Array.from({ length: csfAttempts }, () => ({ kind: 'status' as const, status: 503 })));
    const res = await call('POST', `/v1/qrs/issuers/${account.issuerId}/synchronize`, { headers: { Authorization: `Bearer ${account.accessToken}` } });
    expect(res.status).to.equal(202);
    const job = await Job.fromId(harness().producers.queue(QUEUES.csfSync), res.body.jobId as string);
    await job!.waitUntilFinished(queues.events['csf-sync'], 30_000).catch(() => undefined);

    const after = await metrics();
    const delta = (name: string, labels: Record<string, string>) => sampleValue(after, name, labels) - sampleValue(before, name, labels);
    const sync = { queue: QUEUES.csfSync, job_name: 'sync-issuer' };
    expect(delta(JOB_COUNT, { ...sync, outcome: 'retrying' })).to.equal(csfAttempts - 1);
    expect(delta(JOB_COUNT, { ...sync, outcome: 'failed' })).to.equal(1);
    expect(delta('autofactura_csf_request_duration_seconds_count', { outcome: 'unavailable' })).to.equal(csfAttempts);
  });

  it('shows the depth of every queue by state and the age of its oldest waiting job', async () => {
    const delayedExpiries = (text: string) => sampleValue(text, 'autofactura_queue_jobs', { queue: QUEUES.expiry, state: 'delayed' });
    const before = await metrics();
    const later = await harness()
      .producers.queue(QUEUES.expiry)
      .add('expire-due-qrs', { dueAt: 1 }, { jobId: `metrics-${randomUUID()}`, delay: 3_600_000 });
    try {
      const after = await metrics();
      expect(delayedExpiries(after) - delayedExpiries(before)).to.equal(1);
      const samples = parseMetrics(after);
      for (const queue of Object.values(QUEUES)) {
        for (const state of ['waiting', 'active', 'delayed', 'failed']) {
          expect(
            samples.filter((s) => s.name === 'autofactura_queue_jobs' && s.labels.queue === queue && s.labels.state === state),
            `${queue} ${state}`,
          ).to.have.length(1);
        }
        const oldest = samples.filter((s) => s.name === 'autofactura_queue_oldest_waiting_seconds' && s.labels.queue === queue);
        expect(oldest, queue).to.have.length(1);
        expect(oldest[0]!.value, queue).to.be.at.least(0);
      }
    } finally {
      await later.remove();
    }
  });
});
