import { expect } from 'chai';
import { QUEUES } from '../../../../shared/platform/jobs.js';
import { startMetricsServer, type MetricsServer } from '../../../../shared/platform/metrics/metrics-server.js';
import { harness } from '../../../helpers/harness.js';
import { sampleValue } from '../../../helpers/metrics-text.js';
import { postQr, qrBody } from '../../../helpers/qr-body.js';

const TOKEN = 'worker-metrics-test-token';

describe('the worker process metrics server', () => {
  let server: MetricsServer;
  before(async () => {
    server = await startMetricsServer({ port: 0, host: '127.0.0.1', token: TOKEN, logger: harness().deps.logger });
  });
  after(() => server.close());

  /** A scrape with the token, another one, or (null) none. */
  const scrape = (path = '/metrics', token: string | null = TOKEN) => fetch(`${server.url}${path}`, { headers: token === null ? {} : { Authorization: `Bearer ${token}` } });

  it('serves the job metrics after a job ran, to the metrics token only', async () => {
    const render = { queue: QUEUES.render, job_name: 'render-qr', outcome: 'completed' };
    const before = await (await scrape()).text();
    const account = await harness().bootstrap();
    expect((await postQr(account, qrBody(account.storeUid))).status).to.equal(201); // answered once the render job completed

    const res = await scrape();
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    const after = await res.text();
    expect(sampleValue(after, 'autofactura_job_duration_seconds_count', render) - sampleValue(before, 'autofactura_job_duration_seconds_count', render)).to.be.at.least(1);
    expect(sampleValue(after, 'autofactura_job_duration_seconds_bucket', { ...render, le: '+Inf' })).to.equal(sampleValue(after, 'autofactura_job_duration_seconds_count', render));

    const refused = await scrape('/metrics', null);
    expect(refused.status).to.equal(401);
    expect(refused.headers.get('www-authenticate')).to.equal('Bearer realm="metrics"');
    expect((await scrape('/metrics', 'wrong')).status).to.equal(401);
    expect((await scrape('/health')).status).to.equal(404);
  });
});
