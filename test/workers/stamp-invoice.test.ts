import { expect } from 'chai';
import type { Job, QueueEvents } from 'bullmq';
import { Decimal } from 'decimal.js';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { PacUnavailable } from '../../shared/adapters/pac/pac-client.js';
import { swPacClient } from '../../shared/adapters/pac/sw-pac-client.js';
import { parseXml } from '../../shared/domain/cfdi/parse-xml.js';
import { attribute, descendants } from '../../shared/domain/cfdi/xml-element.js';
import { encryptionKeyring } from '../../shared/platform/crypto/encrypt-at-rest.js';
import { newId } from '../../shared/platform/ids.js';
import { QUEUES, type InvoicePayload } from '../../shared/platform/jobs.js';
import { createProducers, type Producers } from '../../shared/platform/queues.js';
import { findInvoiceToStamp, recordConfirmation } from '../../shared/repositories/invoices.js';
import { ATTENTION_KINDS } from '../../shared/status/needs-attention.js';
import { retryWithheldStamp } from '../../shared/invoices/retry-withheld-stamp.js';
import { satCatalogs } from '../../shared/sat/catalogs.js';
import { RESEAL_AFTER_HOURS, documentSource, salesOf, sealDocument, stampInvoiceJob, type StampDeps } from '../../workers/stamp-invoice.js';
import { sweepStampingJob } from '../../workers/sweep-stamping.js';
import { BUYER, confirmReviewed, linkQuery, newQrLink, queueEvents, stamped } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';
import { rejection } from '../helpers/rejection.js';

/** The PAC's answers SW gives besides a stamp or a refusal (issue #38): its own failures, a withheld stamp, a re-sealed document. */
describe('stamp-invoice and what SW answers', function () {
  // A test waits for a stamp job through all its attempts (see stamped()).
  this.timeout(90_000);
  let account: BootstrapResult;
  let events: QueueEvents;
  before(async () => {
    account = await harness().bootstrap();
    events = await queueEvents('stamp');
  });
  after(() => events.close());

  const invoices = (qrId: string) => harness().deps.db('invoices').where({ transaction_id: qrId }).orderBy('created_at');
  /**
   * A sale confirmed without its stamp job (the test runs the job itself) and the job's dependencies; its e-mail
   * job goes to queues of `queues` that no worker serves, removed by close(): nothing of the test runs after it.
   */
  const confirmedWithoutJob = async (queues: string) => {
    const { config, db, files } = harness().deps;
    const link = await newQrLink(account);
    const invoiceId = newId('invoice');
    expect((await recordConfirmation(db, { invoiceId, transactionIds: [link.qrId], merchantId: account.merchantId, customer: BUYER })).ok).to.equal(true);
    const producers = await createProducers(harness().redis, config, `${config.queuePrefix}${queues}`);
    const deps: StampDeps = {
      db,
      producers,
      files,
      catalogs: satCatalogs(),
      keyring: encryptionKeyring(config),
      pac: swPacClient(harness().pac.url, harness().pac.token, 2000, `${harness().pac.url}/ConsultaCFDIService.svc`),
    };
    const close = async () => {
      for (const queue of Object.values(QUEUES)) await producers.queue(queue).obliterate({ force: true });
      await producers.close();
    };
    return { link, invoiceId, deps, close };
  };
  /** The fake PAC's calls from `from` on: the outcome of each. */
  const callsSince = (from: number) =>
    harness()
      .pac.calls.slice(from)
      .map((c) => c.outcome);

  it('a PAC answering CO1000 then stamping: the invoice is stamped and the buyer is never told it was refused', async () => {
    const link = await newQrLink(account);
    const from = harness().pac.calls.length;
    harness().pac.script({ kind: 'co1000' }, { kind: 'co1000' });
    expect((await confirmReviewed(link)).status).to.equal(202);
    expect(await stamped(events, link.qrId)).to.include({ outcome: 'stamped' });
    expect(callsSince(from)).to.deep.equal(['CO1000', 'CO1000', 'stamped']);
    expect((await invoices(link.qrId)).map((r) => r.status)).to.deep.equal(['ACTIVE']);
    const status = (await call('GET', `/v1/public/qrs/status?${linkQuery(link)}`)).body;
    expect(status.status).to.equal('INVOICED');
    expect(status.confirmation).to.include({ status: 'ACTIVE', error: null });
  });

  it('a PAC that says it stamped but withholds the stamp through every attempt: the job ends named, not retried without end', async () => {
    const { db, config } = harness().deps;
    const link = await newQrLink(account);
    const from = harness().pac.calls.length;
    harness().pac.script(...Array.from({ length: config.pacAttempts }, () => ({ kind: 'withheld' as const })));
    expect((await confirmReviewed(link)).status).to.equal(202);
    expect(await stamped(events, link.qrId)).to.include({ outcome: 'withheld' });
    // Stamped once at the PAC, then its every answer withheld it: as many calls as attempts, no more.
    expect(callsSince(from)).to.deep.equal(['stamped, withheld', ...Array.from({ length: config.pacAttempts - 1 }, () => 'previously stamped, withheld')]);
    const [row] = await invoices(link.qrId);
    expect(row.status).to.equal('STAMPING');
    expect(row.stamp_withheld_at).to.be.instanceOf(Date);
    // The sweep does not queue it again, however long it has waited.
    await db('invoices')
      .where({ id: row.id })
      .update({ updated_at: new Date(Date.now() - 2 * 3600_000) });
    const queued: string[] = [];
    const producers = { add: (_name: string, data: InvoicePayload) => Promise.resolve(void queued.push(data.invoiceId)) } as unknown as Producers;
    await sweepStampingJob(db, producers, config);
    expect(queued).to.not.include(row.id);
    const metrics = await call('GET', '/metrics', { headers: { Authorization: `Bearer ${config.metricsToken}` } });
    expect((metrics.body as Buffer).toString()).to.match(/^autofactura_stamps_withheld_total [1-9]/m);
    // Named for the operator (attention kind withheld-stamp): listed, never given up (its CFDI exists at SAT).
    const withheld = ATTENTION_KINDS.find((k) => k.kind === 'withheld-stamp')!;
    expect((await withheld.list(db, 100)).map((e) => e.id)).to.include(row.id);
    expect(await withheld.giveUp({ db, producers: harness().producers }, row.id)).to.have.property('refused');
    // The operator's retry (npm run cli -- attention retry withheld-stamp ID) once SW hands the stamp over: the same CFDI, recorded.
    const retried = harness().pac.calls.length;
    expect(await withheld.retry({ db, producers: harness().producers }, row.id)).to.equal(true);
    expect(await stamped(events, link.qrId)).to.include({ outcome: 'stamped' });
    expect(callsSince(retried)).to.deep.equal(['previously stamped']);
    const [recorded] = await invoices(link.qrId);
    expect(recorded).to.include({ status: 'ACTIVE', stamp_withheld_at: null, uuid: harness().pac.calls[from]!.uuid });
    expect(await retryWithheldStamp(db, harness().producers, row.id)).to.equal('not-withheld');
  });

  it(`re-sealed after ${RESEAL_AFTER_HOURS} hours while the first stamp's answer was lost: one CFDI, the first, recorded with its own Fecha`, async () => {
    const { files } = harness().deps;
    // A confirmation without its job: this test runs the job itself, at the hours it chooses.
    const { link, invoiceId, deps, close } = await confirmedWithoutJob('reseal');
    const job = { data: { invoiceId } } as Job<InvoicePayload>;
    const from = harness().pac.calls.length;
    const start = new Date();
    try {
      harness().pac.script({ kind: 'stamp-and-hang' });
      await rejection(
        stampInvoiceJob(deps, job, () => start),
        PacUnavailable,
      );
      const [first] = await invoices(link.qrId);
      const later = new Date(start.getTime() + (RESEAL_AFTER_HOURS + 1) * 3600_000);
      expect(await stampInvoiceJob(deps, job, () => later)).to.include({ outcome: 'stamped' });

      const [row] = await invoices(link.qrId);
      expect(row.status).to.equal('ACTIVE');
      // The PAC stamped one CFDI for this sale; the re-sealed document got that stamp back.
      expect(callsSince(from)).to.deep.equal(['stamped, no answer', 'customid stamped before']);
      expect(
        harness()
          .pac.calls.slice(from)
          .map((c) => c.uuid),
      ).to.deep.equal([row.uuid, row.uuid]);
      // What is recorded is that document: its XML, its Fecha (not the re-sealed one's), its amounts.
      const xml = (await files.get(row.xml_file_key))!.data.toString('utf8');
      const fecha = attribute(parseXml(xml), 'Fecha');
      expect(fecha).to.equal(first.issued_local);
      expect(row.issued_local).to.equal(first.issued_local);
      // SW's UUID as it wrote it in the XML (lower case); stored upper-cased, as the API shows it.
      const tfd = descendants(parseXml(xml), ['cfdi:Complemento', 'tfd:TimbreFiscalDigital'])[0]!;
      expect(attribute(tfd, 'UUID')).to.equal(row.uuid.toLowerCase());
      expect(row.uuid).to.match(/^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/);
      expect(attribute(parseXml(row.sealed_xml), 'Fecha')).to.equal(first.issued_local);
      expect(new Decimal(row.total).eq(attribute(parseXml(xml), 'Total')!)).to.equal(true);
      const detail = (await call('GET', `/v1/qrs/${link.qrId}`, { headers: { 'X-API-Key': account.apiKey } })).body;
      expect(detail.status).to.equal('INVOICED');
      expect(detail.invoice.uuid).to.equal(row.uuid);
    } finally {
      await close();
    }
  });

  // Eight stores of one RFC numbering alike (`npm run bench`'s cluster run) made twins of twins: an invoice whose
  // first three customids had each ended with another invoice's stamp met those three again at every attempt.
  it("an invoice whose first three customids ended with other invoices' stamps: its next attempt goes on under the fourth and is stamped", async () => {
    const { db } = harness().deps;
    const { link, invoiceId, deps, close } = await confirmedWithoutJob('twins3');
    // A clock a second further at each reading: each re-seal's later Fecha without waiting for it.
    let at = Date.now();
    const clock = () => new Date((at += 1000));
    try {
      // Under each of its first three customids, a document of its own stamped, and that stamp recorded by
      // another invoice (the twin that recorded first; three stamped invoices take their UUIDs).
      const toStamp = (await findInvoiceToStamp(db, invoiceId))!;
      const source = documentSource(deps, toStamp, await salesOf(deps, [toStamp]));
      const taken: string[] = [];
      for (const customId of [invoiceId, `${invoiceId}.1`, `${invoiceId}.2`]) {
        const sealing = await sealDocument(deps, toStamp, source, clock);
        if (sealing.kind === 'refused') throw new Error('not sealed');
        taken.push((await deps.pac.stamp(sealing.xml, { customId })).uuid.toUpperCase());
      }
      for (const uuid of taken) {
        const twin = await newQrLink(account);
        expect((await confirmReviewed(twin)).status).to.equal(202);
        await stamped(events, twin.qrId);
        await db('invoices').where({ transaction_id: twin.qrId }).update({ uuid });
      }
      const job = { data: { invoiceId } } as Job<InvoicePayload>;
      const from = harness().pac.calls.length;
      const err = await rejection(stampInvoiceJob(deps, job, clock), Error);
      expect(err.message).to.match(/three times with the stamp of another invoice/);
      expect(callsSince(from)).to.deep.equal(['customid stamped before', 'customid stamped before', 'customid stamped before']);
      const [waiting] = await invoices(link.qrId);
      expect(waiting).to.include({ status: 'STAMPING', stamp_twins: 3 });

      // The next attempt (a retry, the sweep's job): one call, under the fourth customid.
      const retried = harness().pac.calls.length;
      expect(await stampInvoiceJob(deps, job, clock)).to.include({ outcome: 'stamped' });
      expect(callsSince(retried)).to.deep.equal(['stamped']);
      const [row] = await invoices(link.qrId);
      expect(row.status).to.equal('ACTIVE');
      expect(taken).to.not.include(row.uuid);
      expect(attribute(parseXml(row.sealed_xml), 'Fecha')).to.equal(row.issued_local);
    } finally {
      await close();
    }
  });
});
