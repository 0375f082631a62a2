import type { Server } from 'node:http';
import { expect } from 'chai';
import { pino } from 'pino';
import { createApp } from '../../api/app.js';
import { PAC_CREDENTIALS_ALARM_KEY } from '../../shared/adapters/pac/pac-credentials-alarm.js';
import { hashAdminPassword } from '../../shared/platform/crypto/admin-password.js';
import { jobId } from '../../shared/platform/jobs.js';
import { enqueueStamp } from '../../shared/invoices/enqueue-stamp.js';
import { confirmReviewed, newQrLink, queueEvents, stamped } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';
import { sampleValue } from '../helpers/metrics-text.js';

const USER = 'ops';
const PASSWORD = 'correct horse battery staple';
const RAISED = 'the PAC refuses the credentials: stamping and cancelling paused until a call succeeds';
const CLEARED = 'the PAC accepts the credentials again: stamping and cancelling resumed';

/** Polls `probe` until it holds: what is awaited is another process's state (Redis, the fake's log), with no event of its own. */
async function until(what: string, probe: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the PAC refusing the credentials while buyers confirm: stamping pauses with one alarm and resumes by itself', function () {
  this.timeout(90_000);
  let server: Server;
  let statusUrl: string;

  before(async () => {
    const config = { ...harness().deps.config, adminUser: USER, adminPasswordHash: await hashAdminPassword(PASSWORD) };
    server = createApp({ ...harness().deps, config, logger: pino({ level: 'silent' }) }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    statusUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/admin/status`;
  });
  after(() => server.close());

  const statusPage = async () => {
    const res = await fetch(statusUrl, { headers: { Authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}` } });
    expect(res.status).to.equal(200);
    return res.text();
  };
  const alarmGauge = async () => {
    const res = await call('GET', '/metrics', { headers: { Authorization: `Bearer ${harness().deps.config.metricsToken}` } });
    return sampleValue((res.body as Buffer).toString(), 'autofactura_pac_credentials_rejected');
  };
  const linesSaying = (message: string) => harness().logs.filter((line) => line.includes(message)).length;

  it('no confirmation fails or is refused, no attempt is spent, the alarm shows once; fixed, each stamps once', async () => {
    const h = harness();
    const account = await h.bootstrap();
    const events = await queueEvents('stamp');
    const { password } = h.pac.credentials;
    const raisedBefore = linesSaying(RAISED);
    const clearedBefore = linesSaying(CLEARED);
    try {
      // SW's password changed and the service was not told; the token it holds then expires.
      h.pac.credentials.password = `${password}-rotated`;
      h.pac.expireTokens();
      const links = await Promise.all([1, 2, 3, 4].map(() => newQrLink(account)));
      for (const link of links) expect((await confirmReviewed(link)).status).to.equal(202);
      const invoices = (await h.deps
        .db('invoices')
        .whereIn(
          'transaction_id',
          links.map((l) => l.qrId),
        )
        .select('id', 'transaction_id')) as { id: string; transaction_id: string }[];
      expect(invoices).to.have.length(4);

      // Several pauses go by: the PAC is asked again after each, and refuses again.
      await until('three refused authentications', () => h.pac.auth.filter((a) => a.outcome === 'refused AU2000').length >= 3);
      const alarm = JSON.parse((await h.deps.redis.get(PAC_CREDENTIALS_ALARM_KEY)) ?? 'null') as { problem: string; message: string } | null;
      expect(alarm?.problem).to.equal('authentication refused');
      expect(alarm?.message).to.contain('AU2000').and.not.contain(password);
      expect(linesSaying(RAISED) - raisedBefore).to.equal(1);
      expect(await alarmGauge()).to.equal(1);
      const page = await statusPage();
      expect(page).to.contain('PAC credentials rejected').and.contain('refuses PAC_USER and PAC_PASSWORD');

      // Nothing failed or was refused, no stamp job spent an attempt (each confirmation's batch: issue #40), and the sweep adds no second job.
      const stampQueue = h.producers.queue('stamp');
      const jobs = await Promise.all(invoices.map((i) => stampQueue.getJob(jobId.stampInvoices(i.id))));
      expect(jobs.map((j) => j?.attemptsMade)).to.deep.equal([0, 0, 0, 0]);
      expect(
        await h.deps
          .db('invoices')
          .whereIn(
            'id',
            invoices.map((i) => i.id),
          )
          .pluck('status'),
      ).to.deep.equal(['STAMPING', 'STAMPING', 'STAMPING', 'STAMPING']);
      // What the stamping sweep does with a confirmation still STAMPING (workers/sweep-stamping.ts): each its own
      // job, once (a second sweep adds nothing); its batch, run again after the pause, leaves it to that job.
      for (const { id } of invoices) await enqueueStamp(h.producers, id);
      for (const { id } of invoices) await enqueueStamp(h.producers, id);
      const queued = (await stampQueue.getJobs(['waiting', 'active', 'delayed'])).filter((j) => invoices.some((i) => j.id === jobId.stampInvoice(i.id)));
      expect(queued).to.have.length(4);

      // The operator gives the service the new password (here: SW takes the old one again).
      h.pac.credentials.password = password;
      for (const link of links) expect(await stamped(events, link.qrId)).to.include({ outcome: 'stamped' });

      const stampedRows = (await h.deps
        .db('invoices')
        .whereIn(
          'id',
          invoices.map((i) => i.id),
        )
        .select('status', 'uuid')) as { status: string; uuid: string }[];
      expect(stampedRows.map((r) => r.status)).to.deep.equal(['ACTIVE', 'ACTIVE', 'ACTIVE', 'ACTIVE']);
      expect(
        await h.deps
          .db('qr_transactions')
          .whereIn(
            'id',
            links.map((l) => l.qrId),
          )
          .pluck('status'),
      ).to.deep.equal(['INVOICED', 'INVOICED', 'INVOICED', 'INVOICED']);
      for (const { uuid } of stampedRows) expect(h.pac.calls.filter((c) => c.uuid === uuid).map((c) => c.outcome)).to.deep.equal(['stamped']);
      // No job attempt was logged as failed while paused.
      expect(h.logs.filter((line) => line.includes('job failed') && invoices.some((i) => line.includes(i.id)))).to.deep.equal([]);
      await until('the alarm cleared', async () => (await h.deps.redis.exists(PAC_CREDENTIALS_ALARM_KEY)) === 0);
      expect(linesSaying(CLEARED) - clearedBefore).to.equal(1);
      expect(linesSaying(RAISED) - raisedBefore).to.equal(1);
      expect(await alarmGauge()).to.equal(0);
      expect(await statusPage()).not.to.contain('PAC credentials rejected');
    } finally {
      h.pac.credentials.password = password;
      await events.close();
    }
  });

  it('a cancellation asked meanwhile waits too, REQUESTED with no attempt spent, and is sent once the PAC takes the credentials', async () => {
    const h = harness();
    const account = await h.bootstrap();
    const [stampEvents, cancelEvents] = await Promise.all([queueEvents('stamp'), queueEvents('cancel')]);
    const { password } = h.pac.credentials;
    try {
      const link = await newQrLink(account);
      expect((await confirmReviewed(link)).status).to.equal(202);
      await stamped(stampEvents, link.qrId);
      const invoice = (await h.deps.db('invoices').where({ transaction_id: link.qrId }).first('id', 'uuid')) as { id: string; uuid: string };

      h.pac.credentials.password = `${password}-rotated`;
      h.pac.expireTokens();
      const refusedBefore = h.pac.auth.filter((a) => a.outcome === 'refused AU2000').length;
      const asked = await call('DELETE', `/v1/qrs/invoices/${invoice.uuid}`, { headers: { 'X-API-Key': account.apiKey }, body: { motive: '02' } });
      expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
      await until('two refused authentications', () => h.pac.auth.filter((a) => a.outcome === 'refused AU2000').length >= refusedBefore + 2);
      const cancellation = (await h.deps.db('invoice_cancellations').where({ invoice_id: invoice.id }).first('id', 'status')) as { id: string; status: string };
      expect(cancellation.status).to.equal('REQUESTED');
      const job = await h.producers.queue('cancel').getJob(jobId.cancelInvoice(cancellation.id));
      expect(job?.attemptsMade).to.equal(0);
      expect(JSON.parse((await h.deps.redis.get(PAC_CREDENTIALS_ALARM_KEY)) ?? 'null')).to.include({ operation: 'cancel', problem: 'authentication refused' });

      h.pac.credentials.password = password;
      expect(await job!.waitUntilFinished(cancelEvents, 30_000)).to.include({ outcome: 'cancelled' });
      expect(h.pac.calls.filter((c) => c.uuid === invoice.uuid && c.outcome.startsWith('cancel'))).to.have.length(1);
      await until('the alarm cleared', async () => (await h.deps.redis.exists(PAC_CREDENTIALS_ALARM_KEY)) === 0);
    } finally {
      h.pac.credentials.password = password;
      await Promise.all([stampEvents.close(), cancelEvents.close()]);
    }
  });
});
