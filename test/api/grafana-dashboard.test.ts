import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';
import { sampleValue } from '../helpers/metrics-text.js';
import { postQr, qrBody } from '../helpers/qr-body.js';

const root = new URL('../../', import.meta.url).pathname;

describe('the Grafana dashboard in docs/ (issue #21)', () => {
  it('queries only metrics the service exports, and shows the QR lifecycle, stamping and the queues', async () => {
    const dashboard = JSON.parse(readFileSync(`${root}docs/grafana-dashboard.json`, 'utf8')) as { panels: { title: string; targets: { expr: string }[] }[] };
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
    const queried = new Set(exprs.flatMap((e) => [...e.matchAll(/\b(autofactura_[a-z_]+?)(_bucket|_count|_sum)?\b/g)].map((m) => m[1]!)));
    const metrics = await call('GET', '/metrics', { headers: { Authorization: `Bearer ${harness().deps.config.metricsToken}` } });
    expect(metrics.status).to.equal(200);
    const exported = new Set([...(metrics.body as Buffer).toString().matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
    expect([...queried].filter((name) => !exported.has(name))).to.deep.equal([]);
    for (const name of ['autofactura_qr_transitions_total', 'autofactura_job_duration_seconds', 'autofactura_queue_jobs', 'autofactura_pac_request_duration_seconds']) {
      expect(queried, name).to.include(name);
    }
  });

  it('counts QRs entering each status: a created QR is one more PENDING, its first opening one more SCANNED', async () => {
    const scrape = async () => ((await call('GET', '/metrics', { headers: { Authorization: `Bearer ${harness().deps.config.metricsToken}` } })).body as Buffer).toString();
    const count = (text: string, status: string) => sampleValue(text, 'autofactura_qr_transitions_total', { status }) ?? 0;
    const account = await harness().bootstrap();
    const before = await scrape();
    const qr = (await postQr(account, qrBody(account.storeUid))).body;
    const link = new URL(qr.qr_content as string);
    expect((await call('GET', `/v1/public/qrs/resolve?${link.searchParams.toString()}`)).status).to.equal(200);
    const after = await scrape();
    expect(count(after, 'PENDING') - count(before, 'PENDING')).to.equal(1);
    expect(count(after, 'SCANNED') - count(before, 'SCANNED')).to.equal(1);
  });
});
