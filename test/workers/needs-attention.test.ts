import { execFile } from 'node:child_process';
import type { Server } from 'node:http';
import { promisify } from 'node:util';
import type { QueueEvents } from 'bullmq';
import { expect } from 'chai';
import { pino } from 'pino';
import { createApp } from '../../api/app.js';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from '../../fakes/webhook-receiver.js';
import { hashAdminPassword } from '../../shared/platform/crypto/admin-password.js';
import { newId } from '../../shared/platform/ids.js';
import { jobId, QUEUES } from '../../shared/platform/jobs.js';
import { recordConfirmation } from '../../shared/repositories/invoices.js';
import { insertInvoiceExport } from '../../shared/repositories/invoice-exports.js';
import { recordSyncInterrupted } from '../../shared/repositories/issuers.js';
import { recordZipFailure } from '../../shared/books/invoice-zip.js';
import { emitEvents } from '../../shared/webhooks/emit-event.js';
import { actOnAttention, readNeedsAttention, type AttentionEntry } from '../../shared/status/needs-attention.js';
import { dispatchWebhooksJob } from '../../workers/dispatch-webhooks.js';
import { sweepInvoiceExportsJob } from '../../workers/build-invoice-export.js';
import { sweepStampingJob } from '../../workers/sweep-stamping.js';
import { satCatalogs } from '../../shared/sat/catalogs.js';
import { BUYER, confirmReviewed, newQrLink, queueEventsOf, stamped } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const HOUR_MS = 3_600_000;
const USER = 'ops';
const PASSWORD = 'correct horse battery staple';
const OPERATOR = { Authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}` };

/** Polls PostgreSQL until `check` holds (the state is the row's; no event announces it). */
async function until<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `npm run cli -- attention …` as an operator runs it. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'bin/cli.ts', 'attention', ...args], {
      cwd: root,
      timeout: 60_000,
      env: { ...process.env, OPERATOR: 'test-operator' },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/**
 * Issue #38, "nothing is re-queued forever": what the service stopped retrying by itself is named (a state that
 * needs attention), alarmed (the gauge, the status page's panel, a webhook event where the merchant can act) and
 * acted on by an operator (retry or give up, audited).
 */
describe('needs attention: nothing retried forever (issue #38)', function () {
  this.timeout(180_000);
  let account: BootstrapResult;
  let events: Record<'stamp' | 'exports', QueueEvents>;
  let closeEvents: () => Promise<void>;
  let receiver: FakeWebhookReceiver;
  let server: Server;
  let statusUrl: string;
  const db = () => harness().deps.db;
  const bearer = (a: BootstrapResult) => ({ Authorization: `Bearer ${a.accessToken}` });
  const itemsOf = async (kind: string): Promise<AttentionEntry[]> => (await readNeedsAttention(db(), 1000)).find((k) => k.kind === kind)!.items;
  const act = async (action: 'retry' | 'give-up', kind: string, id: string) =>
    (await actOnAttention(harness().deps, pino({ level: 'silent' }), { action, kind, id, operator: 'test' })).outcome;
  const statusPage = async () => {
    const res = await fetch(statusUrl, { headers: OPERATOR });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-security-policy')).to.match(/^default-src 'none'/);
    return res.text();
  };
  const attentionRow = (html: string, kind: string, id: string) => {
    const row = new RegExp(`<tr data-attention="${kind}:${id}">(.*?)</tr>`).exec(html)?.[1];
    if (row === undefined) return undefined;
    return [...row.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map(([, cell]) => cell!.replace(/<[^>]+>/g, ''));
  };
  /**
   * The page lists the oldest ATTENTION_ROWS of a kind: what earlier test files of the run left (failed webhook
   * deliveries, exports…) is given up first, as an operator would. Not for invoices: giving one up sends an event.
   */
  const onlyOneListed = async (kind: string, id: string) => {
    for (const other of await itemsOf(kind)) if (other.id !== id) await act('give-up', kind, other.id);
  };
  const gauge = async (kind: string) => {
    const res = await fetch(`${harness().baseUrl}/metrics`, { headers: { Authorization: `Bearer ${harness().deps.config.metricsToken}` } });
    const line = (await res.text()).split('\n').find((l) => l.startsWith(`autofactura_needs_attention{kind="${kind}"}`));
    return line === undefined ? undefined : Number(line.split(' ').at(-1));
  };

  before(async () => {
    account = await harness().bootstrap();
    ({ events, close: closeEvents } = await queueEventsOf('stamp', 'exports'));
    receiver = await startFakeWebhookReceiver();
    const hook = await call('POST', '/v1/webhooks/endpoints', {
      headers: bearer(account),
      body: { url: receiver.url, events: ['invoice.stalled', 'invoice.failed', 'export.failed', 'qr.scanned'] },
    });
    expect(hook.status, JSON.stringify(hook.body)).to.equal(201);
    const config = { ...harness().deps.config, adminUser: USER, adminPasswordHash: await hashAdminPassword(PASSWORD) };
    server = createApp({ ...harness().deps, config, logger: pino({ level: 'silent' }) }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    statusUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/admin/status`;
  });
  after(async () => {
    server.close();
    await closeEvents();
    await receiver.close();
  });

  /** What a confirmation STAMPING for a day leaves: confirmed 25 hours ago, last changed 2 hours ago. */
  const ageInvoice = (invoiceId: string) =>
    db()('invoices')
      .where({ id: invoiceId })
      .update({ created_at: new Date(Date.now() - 25 * HOUR_MS), updated_at: new Date(Date.now() - 2 * HOUR_MS) });
  const sweep = () => sweepStampingJob(db(), harness().producers, harness().deps.config);

  describe('an invoice the PAC does not stamp within STAMP_GIVE_UP_MS', () => {
    it('is stalled, not re-queued, alarmed (gauge, status page, invoice.stalled); retried, it stamps once', async () => {
      const link = await newQrLink(account);
      // The PAC is down through every attempt of the stamp job.
      harness().pac.script(...Array.from({ length: harness().deps.config.pacAttempts }, () => ({ kind: 'status' as const, status: 503 })));
      expect((await confirmReviewed(link)).status).to.equal(202);
      await stamped(events.stamp, link.qrId).then(
        () => expect.fail('the stamp job should have failed for good'),
        () => undefined,
      );
      const invoice = (await db()('invoices').where({ transaction_id: link.qrId }).first()) as { id: string; status: string };
      expect(invoice.status).to.equal('STAMPING');
      await ageInvoice(invoice.id);

      expect(await sweep()).to.deep.equal({ requeued: 0, stalled: 1 });
      const row = (await db()('invoices').where({ id: invoice.id }).first()) as { status: string; stalled_at: Date | null; stall_cause: string };
      expect(row.status, 'still no CFDI: STAMPING').to.equal('STAMPING');
      expect(row.stalled_at).to.be.an.instanceOf(Date);
      expect(row.stall_cause).to.match(/not stamped within 24 hours \(STAMP_GIVE_UP_MS\)/);
      expect(await harness().producers.queue(QUEUES.stamp).getJob(jobId.stampInvoice(invoice.id)), 'not queued again').to.equal(undefined);
      const calls = harness().pac.calls.length;
      await db()('invoices')
        .where({ id: invoice.id })
        .update({ updated_at: new Date(Date.now() - 2 * HOUR_MS) });
      expect(await sweep(), 'the next round leaves it alone').to.deep.equal({ requeued: 0, stalled: 0 });
      expect(await harness().producers.queue(QUEUES.stamp).getJob(jobId.stampInvoice(invoice.id))).to.equal(undefined);
      expect(harness().pac.calls.length).to.equal(calls);

      // The alarm: the gauge, the status page's panel, the merchant's event.
      expect(await gauge('invoice')).to.be.at.least(1);
      const item = (await itemsOf('invoice')).find((i) => i.id === invoice.id);
      expect(item).to.include({ merchantId: account.merchantId, cause: row.stall_cause });
      const cells = attentionRow(await statusPage(), 'invoice', invoice.id);
      expect(cells?.slice(0, 4)).to.deep.equal(['invoice', invoice.id, account.merchantId, row.stall_cause]);
      expect(cells?.[4]).to.match(/ago$/);
      const event = (await db()('webhook_events').where({ type: 'invoice.stalled' }).whereRaw("payload->'data'->>'qr_id' = ?", [link.qrId]).first()) as
        { payload: { data: Record<string, unknown> } } | undefined;
      expect(event?.payload.data).to.include({ qr_id: link.qrId, status: 'STAMPING' });
      expect((event?.payload.data.stalled as { cause: string }).cause).to.equal(row.stall_cause);
      await receiver.accepted((h) => h.payload.type === 'invoice.stalled' && h.payload.data.qr_id === link.qrId);

      // Retried once the PAC is back: stamped, once; it leaves the list.
      expect(await act('retry', 'invoice', invoice.id)).to.equal('done');
      expect(await stamped(events.stamp, link.qrId)).to.include({ outcome: 'stamped' });
      const after = (await db()('invoices').where({ id: invoice.id }).first()) as { status: string; uuid: string; stalled_at: Date | null };
      expect(after).to.include({ status: 'ACTIVE', stalled_at: null });
      expect(harness().pac.calls.filter((c) => c.uuid === after.uuid && c.outcome === 'stamped')).to.have.length(1);
      expect((await itemsOf('invoice')).map((i) => i.id)).not.to.include(invoice.id);
      expect(attentionRow(await statusPage(), 'invoice', invoice.id)).to.equal(undefined);
      expect(await act('retry', 'invoice', invoice.id), 'a stamped invoice needs no retry').to.equal('not-needing-attention');
    });

    it('counts the bound from an operator retry: retried, it is re-queued by the sweep again, not stalled at once', async () => {
      const link = await newQrLink(account);
      const invoiceId = newId('invoice');
      expect((await recordConfirmation(db(), { invoiceId, transactionIds: [link.qrId], merchantId: account.merchantId, customer: BUYER })).ok).to.equal(true);
      await ageInvoice(invoiceId);
      expect(await sweep()).to.include({ stalled: 1 });
      // Held by the PAC so the retry's job is still on its way when the sweep looks.
      let release!: () => void;
      harness().pac.script({ kind: 'held', until: new Promise<void>((resolve) => (release = resolve)) });
      expect(await act('retry', 'invoice', invoiceId)).to.equal('done');
      await db()('invoices')
        .where({ id: invoiceId })
        .update({ updated_at: new Date(Date.now() - 2 * HOUR_MS) });
      expect(await sweep()).to.deep.equal({ requeued: 1, stalled: 0 });
      release();
      expect(await stamped(events.stamp, link.qrId)).to.include({ outcome: 'stamped' });
    });

    it('the CLI lists it, refuses what needs no attention, and gives it up: REFUSED, the merchant told, the sale invoiced again', async function () {
      const link = await newQrLink(account);
      const invoiceId = newId('invoice');
      expect((await recordConfirmation(db(), { invoiceId, transactionIds: [link.qrId], merchantId: account.merchantId, customer: BUYER })).ok).to.equal(true);
      await ageInvoice(invoiceId);
      expect(await sweep()).to.include({ stalled: 1 });

      const list = await cli('list', '--json');
      expect(list.code, list.stderr).to.equal(0);
      const kinds = JSON.parse(list.stdout) as { kind: string; count: number; items: { id: string; merchantId: string; cause: string; since: string }[] }[];
      expect(kinds.map((k) => k.kind)).to.include.members(['invoice', 'invoice-email', 'csf-sync', 'export', 'webhook-delivery']);
      expect(kinds.find((k) => k.kind === 'invoice')!.items.find((i) => i.id === invoiceId)).to.include({ merchantId: account.merchantId });

      const unknown = await cli('retry', 'nonsense', invoiceId);
      expect(unknown.code).to.equal(2);
      expect(unknown.stderr).to.match(/unknown kind "nonsense": one of invoice, withheld-stamp, cancellation, global-period, invoice-email, csf-sync, export, webhook-delivery/);

      const given = await cli('give-up', 'invoice', invoiceId, '--json');
      expect(given.code, given.stderr).to.equal(0);
      expect(JSON.parse(given.stdout)).to.deep.equal({ kind: 'invoice', id: invoiceId, action: 'give-up', outcome: 'done' });
      const audit = given.stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.audit === 'needs-attention');
      expect(audit).to.include({ action: 'give-up', kind: 'invoice', id: invoiceId, operator: 'test-operator', outcome: 'done' });

      const row = (await db()('invoices').where({ id: invoiceId }).first()) as { status: string; refusal: { code: string } };
      expect(row.status).to.equal('REFUSED');
      expect(row.refusal.code).to.equal('stamp_given_up');
      const failed = (await db()('webhook_events').where({ type: 'invoice.failed' }).whereRaw("payload->'data'->>'qr_id' = ?", [link.qrId]).first()) as
        { payload: { data: { error: { code: string } } } } | undefined;
      expect(failed?.payload.data.error.code).to.equal('stamp_given_up');

      const again = await cli('retry', 'invoice', invoiceId);
      expect(again.code).to.equal(1);
      expect(again.stdout).to.match(/does not need attention/);

      // The sale is not lost: its QR is free again, and the buyer's new confirmation stamps.
      expect((await confirmReviewed(link)).status).to.equal(202);
      expect(await stamped(events.stamp, link.qrId)).to.include({ outcome: 'stamped' });
    });
  });

  it('is not given up while a stamp job of it waits or runs: the PAC could still stamp it', async () => {
    const link = await newQrLink(account);
    const invoiceId = newId('invoice');
    expect((await recordConfirmation(db(), { invoiceId, transactionIds: [link.qrId], merchantId: account.merchantId, customer: BUYER })).ok).to.equal(true);
    await ageInvoice(invoiceId);
    expect(await sweep()).to.include({ stalled: 1 });
    // A job still waiting (queued by hand, or waiting out a PAC credentials pause), held back so no worker takes it.
    const job = await harness()
      .producers.queue(QUEUES.stamp)
      .add('stamp-invoice', { invoiceId }, { jobId: jobId.stampInvoice(invoiceId), delay: 3_600_000 });
    const refused = await actOnAttention(harness().deps, pino({ level: 'silent' }), { action: 'give-up', kind: 'invoice', id: invoiceId, operator: 'test' });
    expect(refused).to.deep.equal({ outcome: 'refused', reason: 'its stamp job is delayed: let it end (it may stamp), then give up if it is still listed' });
    expect(await db()('invoices').where({ id: invoiceId }).first('status')).to.deep.equal({ status: 'STAMPING' });
    expect((await itemsOf('invoice')).map((i) => i.id)).to.include(invoiceId);
    await job.remove();
    expect(await act('give-up', 'invoice', invoiceId)).to.equal('done');
    expect(await db()('invoices').where({ id: invoiceId }).first('status')).to.deep.equal({ status: 'REFUSED' });
  });

  describe('after an outage', () => {
    it('`attention retry invoice --all` queues every stalled invoice again, each audited, and they stamp', async () => {
      const links = [await newQrLink(account), await newQrLink(account)];
      const ids: string[] = [];
      for (const link of links) {
        const invoiceId = newId('invoice');
        expect((await recordConfirmation(db(), { invoiceId, transactionIds: [link.qrId], merchantId: account.merchantId, customer: BUYER })).ok).to.equal(true);
        await ageInvoice(invoiceId);
        ids.push(invoiceId);
      }
      expect(await sweep()).to.include({ stalled: 2 });
      const all = await cli('retry', 'invoice', '--all', '--json');
      expect(all.code, all.stderr).to.equal(0);
      expect(JSON.parse(all.stdout)).to.deep.include({ kind: 'invoice', action: 'retry', retried: 2, of: 2 });
      const audited = all.stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.audit === 'needs-attention' && l.outcome === 'done');
      expect(audited.map((l) => l.id)).to.have.members(ids);
      for (const link of links) expect(await stamped(events.stamp, link.qrId)).to.include({ outcome: 'stamped' });
    });
  });

  describe("a stamped invoice's e-mail", () => {
    it('not sent a day after the stamp is alarmed; retried it is sent; given up it leaves the list', async () => {
      const stampedInvoice = async () => {
        const link = await newQrLink(account);
        expect((await confirmReviewed(link)).status).to.equal(202);
        expect(await stamped(events.stamp, link.qrId)).to.include({ outcome: 'stamped' });
        const row = (await db()('invoices').where({ transaction_id: link.qrId }).first('id')) as { id: string };
        await until(
          () => db()('invoices').where({ id: row.id }).first('email_sent_at'),
          (r) => (r as { email_sent_at: Date | null }).email_sent_at !== null,
          'the e-mail',
        );
        // What an e-mail whose job used every attempt leaves, a day later: nothing sent, nothing refused.
        await db()('invoices')
          .where({ id: row.id })
          .update({ email_sent_at: null, stamped_at: new Date(Date.now() - 25 * HOUR_MS) });
        return row.id;
      };
      const id = await stampedInvoice();
      const item = (await itemsOf('invoice-email')).find((i) => i.id === id);
      expect(item?.merchantId).to.equal(account.merchantId);
      expect(await gauge('invoice-email')).to.be.at.least(1);
      await onlyOneListed('invoice-email', id);
      expect(attentionRow(await statusPage(), 'invoice-email', id)?.[1]).to.equal(id);

      const mails = harness().smtp.messages.length;
      expect(await act('retry', 'invoice-email', id)).to.equal('done');
      await until(
        () => db()('invoices').where({ id }).first('email_sent_at'),
        (r) => (r as { email_sent_at: Date | null }).email_sent_at !== null,
        'the e-mail sent',
      );
      expect(harness().smtp.messages.length).to.equal(mails + 1);
      expect((await itemsOf('invoice-email')).map((i) => i.id)).not.to.include(id);

      const other = await stampedInvoice();
      expect(await act('give-up', 'invoice-email', other)).to.equal('done');
      expect((await itemsOf('invoice-email')).map((i) => i.id)).not.to.include(other);
      expect(await act('retry', 'invoice-email', other)).to.equal('not-needing-attention');
    });
  });

  describe('a webhook delivery', () => {
    // An account and receiver of their own: a scripted answer goes to whichever delivery arrives next, and the
    // other tests' events (invoice.stalled, invoice.failed…) would take the 500s meant for these.
    let hooked: BootstrapResult;
    let hookReceiver: FakeWebhookReceiver;
    before(async () => {
      hooked = await harness().bootstrap('webhook deliveries needing attention');
      hookReceiver = await startFakeWebhookReceiver();
      const hook = await call('POST', '/v1/webhooks/endpoints', { headers: bearer(hooked), body: { url: hookReceiver.url, events: ['qr.scanned'] } });
      expect(hook.status, JSON.stringify(hook.body)).to.equal(201);
    });
    after(() => hookReceiver.close());

    /** An event for the account's endpoint, and its delivery once dispatched. */
    async function delivery(): Promise<string> {
      const marker = newId('webhookEvent');
      await emitEvents(db(), 'qr.scanned', [{ merchantId: hooked.merchantId, data: { marker } }]);
      const row = await until(
        () => db()('webhook_deliveries as d').join('webhook_events as e', 'e.id', 'd.event_id').whereRaw("e.payload->'data'->>'marker' = ?", [marker]).first('d.id', 'd.status'),
        (r) => r !== undefined,
        'the delivery',
      );
      return (row as { id: string }).id;
    }

    it('FAILED after its attempts is alarmed; retried it is delivered; given up it leaves the list', async () => {
      hookReceiver.script(...Array.from({ length: harness().deps.config.webhookAttempts }, () => ({ status: 500 })));
      const id = await delivery();
      await until(
        () => db()('webhook_deliveries').where({ id }).first('status'),
        (r) => (r as { status: string }).status === 'FAILED',
        'FAILED',
      );
      const item = (await itemsOf('webhook-delivery')).find((i) => i.id === id);
      expect(item?.accountId).to.equal(hooked.accountId);
      expect(item?.cause).to.match(/attempt\(s\); last: HTTP 500/);
      expect(await gauge('webhook-delivery')).to.be.at.least(1);
      await onlyOneListed('webhook-delivery', id);
      expect(attentionRow(await statusPage(), 'webhook-delivery', id)?.slice(0, 3)).to.deep.equal(['webhook-delivery', id, `account ${hooked.accountId}`]);

      expect(await act('retry', 'webhook-delivery', id)).to.equal('done');
      await until(
        () => db()('webhook_deliveries').where({ id }).first('status'),
        (r) => (r as { status: string }).status === 'DELIVERED',
        'DELIVERED',
      );
      expect(await act('give-up', 'webhook-delivery', id), 'delivered: nothing to give up').to.equal('not-needing-attention');

      hookReceiver.script(...Array.from({ length: harness().deps.config.webhookAttempts }, () => ({ status: 500 })));
      const other = await delivery();
      await until(
        () => db()('webhook_deliveries').where({ id: other }).first('status'),
        (r) => (r as { status: string }).status === 'FAILED',
        'FAILED',
      );
      expect(await act('give-up', 'webhook-delivery', other)).to.equal('done');
      expect((await itemsOf('webhook-delivery')).map((i) => i.id)).not.to.include(other);
      expect(await db()('webhook_deliveries').where({ id: other }).first('status')).to.deep.equal({ status: 'FAILED' });
    });

    it('retrying, whose job was lost, ends FAILED (needing attention) instead of PENDING forever', async () => {
      const id = await delivery();
      await until(
        () => db()('webhook_deliveries').where({ id }).first('status'),
        (r) => (r as { status: string }).status === 'DELIVERED',
        'DELIVERED',
      );
      // What a lost retry leaves: PENDING after an attempt, and nothing since for longer than any backoff.
      await db()('webhook_deliveries')
        .where({ id })
        .update({ status: 'PENDING', attempts: 2, last_error: 'HTTP 503', last_attempt_at: new Date(Date.now() - 2 * 86_400_000), delivered_at: null });
      await dispatchWebhooksJob(db(), harness().producers, harness().deps.config);
      const row = (await db()('webhook_deliveries').where({ id }).first('status', 'last_error')) as { status: string; last_error: string };
      expect(row.status).to.equal('FAILED');
      expect(row.last_error).to.match(/^interrupted: .*its job was lost$/);
      expect((await itemsOf('webhook-delivery')).map((i) => i.id)).to.include(id);
      expect(await act('give-up', 'webhook-delivery', id)).to.equal('done');
    });
  });

  describe('an export', () => {
    async function newExport(): Promise<string> {
      const id = newId('invoiceExport');
      await insertInvoiceExport(db(), {
        id,
        accountId: account.accountId,
        reader: { accountId: account.accountId },
        scope: { merchantIds: [account.merchantId] },
        filters: {},
        includePdf: false,
        idempotencyKey: undefined,
        fingerprint: id,
        expiresAt: new Date(Date.now() + 86_400_000),
      });
      return id;
    }
    const exportStatus = async (id: string) => ((await db()('invoice_exports').where({ id }).first('status')) as { status: string }).status;

    it('RUNNING behind a job BullMQ failed without running it ends FAILED, alarmed and announced; retried it is built', async () => {
      const id = await newExport();
      await db()('invoice_exports').where({ id }).update({ status: 'RUNNING' });
      // The job as a worker killed twice mid-build leaves it: the next worker fails it at once, without the handler.
      const job = await harness()
        .producers.queue(QUEUES.exports)
        .add('build-invoice-export', { exportId: id }, { jobId: jobId.buildInvoiceExport(id), delay: 3_600_000, attempts: 3 });
      await harness().redis.hset(`${harness().deps.config.queuePrefix}:${QUEUES.exports}:${job.id!}`, 'defa', 'job stalled more than allowable limit');
      await job.promote();
      await job.waitUntilFinished(events.exports, 30_000).catch(() => undefined);
      expect(await job.getState()).to.equal('failed');
      expect(await exportStatus(id), 'the handler never ran').to.equal('RUNNING');

      const swept = await sweepInvoiceExportsJob(
        { db: db(), files: harness().deps.files, catalogs: satCatalogs(), publicBaseUrl: harness().deps.config.publicBaseUrl },
        harness().producers,
      );
      expect(swept.failed).to.be.at.least(1);
      expect(await exportStatus(id)).to.equal('FAILED');
      const item = (await itemsOf('export')).find((i) => i.id === id);
      expect(item?.accountId).to.equal(account.accountId);
      expect(item?.cause).to.match(/its job failed: job stalled more than allowable limit/);
      expect(await gauge('export')).to.be.at.least(1);
      await onlyOneListed('export', id);
      expect(attentionRow(await statusPage(), 'export', id)?.[1]).to.equal(id);
      const event = (await db()('webhook_events').where({ type: 'export.failed' }).whereRaw("payload->'data'->>'export_id' = ?", [id]).first()) as
        { account_id: string; payload: { data: Record<string, unknown> } } | undefined;
      expect(event?.account_id).to.equal(account.accountId);
      expect(event?.payload.data).to.include({ export_id: id, status: 'FAILED' });

      expect(await act('retry', 'export', id)).to.equal('done');
      await until(
        () => exportStatus(id),
        (s) => s === 'READY',
        'READY',
      );
      expect((await itemsOf('export')).map((i) => i.id)).not.to.include(id);
    });

    it('FAILED after its attempts, given up, stays FAILED and leaves the list', async () => {
      const id = await newExport();
      await recordZipFailure(db(), id, new Error('disk full'));
      expect((await itemsOf('export')).find((i) => i.id === id)?.cause).to.equal('disk full');
      expect(await act('give-up', 'export', id)).to.equal('done');
      expect(await exportStatus(id)).to.equal('FAILED');
      expect((await itemsOf('export')).map((i) => i.id)).not.to.include(id);
      expect(await act('retry', 'export', id)).to.equal('not-needing-attention');
    });
  });

  describe("an issuer's CSF synchronization", () => {
    const synchronize = (a: BootstrapResult) => call('POST', `/v1/qrs/issuers/${a.issuerId}/synchronize`, { headers: bearer(a) });
    const syncOf = async (a: BootstrapResult) => (await call('GET', `/v1/qrs/issuers/${a.issuerId}`, { headers: bearer(a) })).body.synchronization as { status: string };

    it("FAILED because SAT's CSF service never answered needs attention, and retried succeeds; one FAILED on the owner's data does not", async () => {
      const owner = await harness().bootstrap();
      harness().csf.script('EKU9003173C9', ...Array.from({ length: harness().deps.config.csfAttempts }, () => ({ kind: 'status' as const, status: 503 })));
      expect((await synchronize(owner)).status).to.equal(202);
      await until(
        () => syncOf(owner),
        (s) => s.status === 'FAILED',
        'FAILED',
      );
      const item = (await itemsOf('csf-sync')).find((i) => i.id === owner.issuerId);
      expect(item?.accountId).to.equal(owner.accountId);
      expect(await gauge('csf-sync')).to.be.at.least(1);
      await onlyOneListed('csf-sync', owner.issuerId);
      expect(attentionRow(await statusPage(), 'csf-sync', owner.issuerId)?.[1]).to.equal(owner.issuerId);

      expect(await act('retry', 'csf-sync', owner.issuerId)).to.equal('done');
      await until(
        () => syncOf(owner),
        (s) => s.status === 'SUCCEEDED',
        'SUCCEEDED',
      );
      expect((await itemsOf('csf-sync')).map((i) => i.id)).not.to.include(owner.issuerId);

      // The owner's own data (SAT does not know the taxpayer): the owner reads it, no operator needed.
      harness().csf.script('EKU9003173C9', { kind: 'status', status: 404 });
      expect((await synchronize(owner)).status).to.equal(202);
      await until(
        () => syncOf(owner),
        (s) => s.status === 'FAILED',
        'FAILED',
      );
      expect((await itemsOf('csf-sync')).map((i) => i.id)).not.to.include(owner.issuerId);
    });

    it('interrupted (its job lost) needs attention; given up it leaves the list', async () => {
      const owner = await harness().bootstrap();
      await db()('issuers').where({ id: owner.issuerId }).update({ sync_status: 'RUNNING', sync_job_id: 'lost-job' });
      expect(await recordSyncInterrupted(db(), owner.issuerId, 'lost-job', 'the synchronization was interrupted', new Date())).to.equal(true);
      expect((await itemsOf('csf-sync')).map((i) => i.id)).to.include(owner.issuerId);
      expect(await act('give-up', 'csf-sync', owner.issuerId)).to.equal('done');
      expect((await itemsOf('csf-sync')).map((i) => i.id)).not.to.include(owner.issuerId);
      expect((await syncOf(owner)).status, 'the owner still reads FAILED').to.equal('FAILED');
    });
  });
});
