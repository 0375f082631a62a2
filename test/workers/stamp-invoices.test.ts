import { expect } from 'chai';
import type { Job, QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { swPacClient } from '../../shared/adapters/pac/sw-pac-client.js';
import { encryptionKeyring } from '../../shared/platform/crypto/encrypt-at-rest.js';
import { newId } from '../../shared/platform/ids.js';
import { jobId, QUEUES, type InvoicePayload, type InvoicesPayload } from '../../shared/platform/jobs.js';
import { createProducers, type Producers } from '../../shared/platform/queues.js';
import { recordConfirmation } from '../../shared/repositories/invoices.js';
import { enqueueStamp } from '../../shared/invoices/enqueue-stamp.js';
import { queueConfirmedStamp, STAMP_BATCH_MAX } from '../../shared/invoices/stamp-batcher.js';
import { satCatalogs } from '../../shared/sat/catalogs.js';
import { stampInvoiceJob } from '../../workers/stamp-invoice.js';
import { stampInvoicesJob, type StampBatchDeps } from '../../workers/stamp-invoices.js';
import { sweepStampingJob } from '../../workers/sweep-stamping.js';
import type { FileStore } from '../../shared/platform/storage/file-store.js';
import { smtpMailer } from '../../shared/adapters/email/smtp-mailer.js';
import { BUYER, newQrLink, preview, queueEvents, stamped } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';

/**
 * The batched stamp job (issue #40): the confirmations of a few milliseconds in one job, read, sealed and saved
 * together, each sent and recorded on its own. These tests run the batch's handler themselves, on queues no
 * worker serves (`producers` of a prefix of their own), so what it queues (hand-offs, e-mails) stays to be seen.
 */
describe('stamp-invoices: a batch of confirmations', function () {
  this.timeout(90_000);
  let account: BootstrapResult;
  let producers: Producers;
  let events: QueueEvents;
  let mailer: ReturnType<typeof smtpMailer>;
  before(async () => {
    const { config } = harness().deps;
    mailer = smtpMailer({ url: harness().smtp.url, from: config.mailFrom, timeoutMs: config.smtpTimeoutMs });
    account = await harness().bootstrap();
    producers = await createProducers(harness().redis, harness().deps.config, `${harness().deps.config.queuePrefix}batch`);
    events = await queueEvents('stamp');
  });
  after(async () => {
    mailer.close();
    await events.close();
    for (const queue of Object.values(QUEUES)) await producers.queue(queue).obliterate({ force: true });
    await producers.close();
  });

  const db = () => harness().deps.db;
  const deps = (files: FileStore = harness().deps.files): StampBatchDeps => {
    const { config } = harness().deps;
    return {
      db: db(),
      producers,
      files,
      mailer,
      publicBaseUrl: config.publicBaseUrl,
      urlSigningKey: config.urlSigningKey,
      catalogs: satCatalogs(),
      keyring: encryptionKeyring(config),
      pac: swPacClient(harness().pac.url, harness().pac.token, config.pacTimeoutMs, `${harness().pac.url}/ConsultaCFDIService.svc`),
      pacAttempts: config.pacAttempts,
      pacBackoffMs: config.pacBackoffMs,
    };
  };
  /** The batch job as BullMQ hands it over; `attemptsStarted` above 1 on a run after a pause or a stall. */
  const batchJob = (invoiceIds: string[], attemptsStarted = 1) =>
    ({ id: jobId.stampInvoices(invoiceIds[0]!), data: { invoiceIds }, attemptsMade: 0, attemptsStarted, opts: {} }) as Job<InvoicesPayload>;

  /** `count` QRs confirmed (rows written, no job queued: the test runs the batch), their invoice ids in order. */
  async function confirmations(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const link = await newQrLink(account);
      const invoiceId = newId('invoice');
      expect((await recordConfirmation(db(), { invoiceId, transactionIds: [link.qrId], merchantId: account.merchantId, customer: BUYER })).ok).to.equal(true);
      ids.push(invoiceId);
    }
    return ids;
  }
  const rows = async (ids: string[]) => {
    const found = (await db()('invoices').whereIn('id', ids)) as { id: string; status: string; uuid: string | null; sealed_xml: string | null }[];
    return ids.map((id) => found.find((r) => r.id === id)!);
  };
  /** The fake PAC's calls under these invoices' UUIDs. */
  const pacCallsOf = (uuid: string | null) =>
    harness()
      .pac.calls.filter((c) => uuid !== null && c.uuid === uuid)
      .map((c) => c.outcome);

  it("records each stamp on its own: a refusal and an unanswered call affect only their own invoice; the batch sends the stamped ones' mails", async () => {
    const [a, refused, unanswered, d] = await confirmations(4);
    harness().pac.scriptFor(refused!, { kind: 'refuse', code: 'CFDI40145', message: 'El nombre del receptor no coincide' });
    harness().pac.scriptFor(unanswered!, { kind: 'status', status: 502 });
    const result = await stampInvoicesJob(deps(), batchJob([a!, refused!, unanswered!, d!]));

    expect(result.invoices.map((o) => [o.invoiceId, o.outcome, o.code])).to.deep.equal([
      [a, 'stamped', undefined],
      [refused, 'refused', 'CFDI40145'],
      [unanswered, 'retrying', undefined],
      [d, 'stamped', undefined],
    ]);
    const [rowA, rowRefused, rowUnanswered, rowD] = await rows([a!, refused!, unanswered!, d!]);
    expect([rowA!.status, rowRefused!.status, rowUnanswered!.status, rowD!.status]).to.deep.equal(['ACTIVE', 'REFUSED', 'STAMPING', 'ACTIVE']);
    // The document the unanswered call carried is kept: its retry sends the very same bytes.
    expect(rowUnanswered!.sealed_xml).to.be.a('string');
    // Its own job, with the attempts and the first backoff a job of its own would have had after this one.
    const { pacAttempts, pacBackoffMs } = harness().deps.config;
    const own = (await producers.queue('stamp').getJob(jobId.stampInvoice(unanswered!)))!;
    expect(own.opts).to.deep.include({ attempts: pacAttempts - 1, delay: pacBackoffMs });
    // The buyers' mails of the two stamped went out from the batch itself: no e-mail job.
    expect(result.invoices.map((o) => o.email)).to.deep.equal(['sent', undefined, undefined, 'sent']);
    expect(await producers.queue('email').getJobs(['waiting', 'delayed'])).to.deep.equal([]);

    // The hand-off job stamps it, once.
    expect(await stampInvoiceJob(deps(), own as Job<InvoicePayload>)).to.include({ outcome: 'stamped' });
    const [stampedLater] = await rows([unanswered!]);
    expect(stampedLater!.status).to.equal('ACTIVE');
    expect(pacCallsOf(stampedLater!.uuid)).to.deep.equal(['stamped']);
    for (const row of [rowA!, rowD!]) expect(pacCallsOf(row.uuid)).to.deep.equal(['stamped']);
  });

  it('a worker killed mid-batch: the recorded stay recorded, the rest STAMPING with their documents; the sweep stamps each once', async () => {
    const ids = await confirmations(3);
    const victim = ids[1]!;
    const { folio } = (await db()('invoices').where({ id: victim }).first('folio')) as { folio: string };
    // The process "dies" while storing the victim's stamped XML: the PAC made its CFDI, nothing of it is recorded.
    let dead!: () => void;
    const died = new Promise<void>((resolve) => (dead = resolve));
    const { files } = harness().deps;
    const dying: FileStore = {
      ...files,
      put(area, file, extension) {
        if (!file.data.toString('utf8').includes(`Folio="${folio}"`)) return files.put(area, file, extension);
        dead();
        return new Promise<string>(() => undefined);
      },
    };
    void stampInvoicesJob(deps(dying), batchJob(ids));
    await died;
    // The others finish recording meanwhile; the victim's batch never ends.
    const others = [ids[0]!, ids[2]!];
    for (let i = 0; i < 100 && (await rows(others)).some((r) => r.status !== 'ACTIVE'); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    const [victimRow] = await rows([victim]);
    expect(victimRow!.status).to.equal('STAMPING');
    expect(victimRow!.sealed_xml).to.be.a('string');
    expect((await rows(others)).map((r) => r.status)).to.deep.equal(['ACTIVE', 'ACTIVE']);

    // STAMP_SWEEP_MS later: the sweep queues the victim alone, and its job gets the CFDI the PAC made, not a second one.
    await db()('invoices')
      .where({ id: victim })
      .update({ updated_at: new Date(Date.now() - 2 * 3600_000) });
    const swept = await sweepStampingJob(db(), producers, harness().deps.config);
    expect(swept.requeued).to.be.at.least(1);
    const job = (await producers.queue('stamp').getJob(jobId.stampInvoice(victim)))!;
    expect(await stampInvoiceJob(deps(), job as Job<InvoicePayload>)).to.include({ outcome: 'stamped' });
    const [recorded] = await rows([victim]);
    expect(recorded!.status).to.equal('ACTIVE');
    expect(pacCallsOf(recorded!.uuid)).to.deep.equal(['stamped', 'previously stamped']);
    for (const row of await rows(others)) expect(pacCallsOf(row.uuid)).to.deep.equal(['stamped']);
  });

  it('a batch run again (its worker died) or an invoice in two jobs at once: stamped once', async () => {
    const ids = await confirmations(2);
    const [first, again] = await Promise.all([stampInvoicesJob(deps(), batchJob(ids)), stampInvoicesJob(deps(), batchJob(ids))]);
    const recorded = await rows(ids);
    expect(recorded.map((r) => r.status)).to.deep.equal(['ACTIVE', 'ACTIVE']);
    for (const [i, row] of recorded.entries()) {
      // Both runs answer the one stamp; the PAC made one CFDI under the invoice's customid.
      expect([first.invoices[i]!.uuid, again.invoices[i]!.uuid]).to.deep.equal([row.uuid, row.uuid]);
      expect(pacCallsOf(row.uuid)).to.have.length(2);
      expect(pacCallsOf(row.uuid)[0]).to.equal('stamped');
    }
    // A third run (BullMQ's stalled re-run) sends nothing.
    const calls = harness().pac.calls.length;
    expect((await stampInvoicesJob(deps(), batchJob(ids, 2))).invoices.map((o) => o.outcome)).to.deep.equal(['already-stamped', 'already-stamped']);
    expect(harness().pac.calls.length).to.equal(calls);
  });

  it('a batch run again after a pause or a stall leaves to its own job an invoice the sweep queued meanwhile', async () => {
    const [swept, left] = await confirmations(2);
    await enqueueStamp(producers, swept!);
    const result = await stampInvoicesJob(deps(), batchJob([swept!, left!], 2));
    expect(result.invoices.map((o) => o.outcome)).to.deep.equal(['retrying', 'stamped']);
    expect((await rows([swept!]))[0]!.status).to.equal('STAMPING');
    const own = (await producers.queue('stamp').getJob(jobId.stampInvoice(swept!)))!;
    expect(await stampInvoiceJob(deps(), own as Job<InvoicePayload>)).to.include({ outcome: 'stamped' });
    expect(pacCallsOf((await rows([swept!]))[0]!.uuid)).to.deep.equal(['stamped']);
  });

  it('the API gathers its confirmations: one job for those of one moment, a full batch at once', async () => {
    const ids = Array.from({ length: STAMP_BATCH_MAX + 1 }, () => newId('invoice'));
    await Promise.all(ids.map((id) => queueConfirmedStamp(producers, 20, id)));
    const jobs = (await producers.queue('stamp').getJobs(['waiting'])).filter((j) => j.name === 'stamp-invoices' && ids.includes((j.data as InvoicesPayload).invoiceIds[0]!));
    expect(jobs.map((j) => (j.data as InvoicesPayload).invoiceIds.length).sort((x, y) => x - y)).to.deep.equal([1, STAMP_BATCH_MAX]);
    expect(jobs.flatMap((j) => (j.data as InvoicesPayload).invoiceIds).sort()).to.deep.equal([...ids].sort());
  });

  it('a double confirmation queues one stamp and the PAC makes one CFDI', async () => {
    const link = await newQrLink(account);
    const reviewed = await preview(link);
    const request = { v: link.v, t: link.t, m: link.m, customer: BUYER, review_digest: reviewed.body.review_digest as string };
    const answers = await Promise.all([1, 2].map(() => call('POST', '/v1/public/qrs/confirm', { body: request })));
    expect(answers.map((a) => a.status)).to.deep.equal([202, 202]);
    expect(await stamped(events, link.qrId)).to.include({ outcome: 'stamped' });
    const live = (await db()('invoices').where({ transaction_id: link.qrId })) as { uuid: string }[];
    expect(live).to.have.length(1);
    expect(pacCallsOf(live[0]!.uuid)).to.deep.equal(['stamped']);
  });

  it("a stamp-invoice job an older release queued for a buyer's confirmation is still stamped and e-mailed", async () => {
    const link = await newQrLink(account);
    const invoiceId = newId('invoice');
    expect((await recordConfirmation(db(), { invoiceId, transactionIds: [link.qrId], merchantId: account.merchantId, customer: BUYER })).ok).to.equal(true);
    await enqueueStamp(harness().producers, invoiceId);
    expect(await stamped(events, link.qrId)).to.include({ outcome: 'stamped' });
    expect(await harness().producers.queue('email').getJob(jobId.emailInvoice(invoiceId))).to.not.equal(undefined);
  });
});
