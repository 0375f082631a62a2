import { expect } from 'chai';
import type { Job, QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { parseXml } from '../../shared/domain/cfdi/parse-xml.js';
import { attribute, child } from '../../shared/domain/cfdi/xml-element.js';
import { signQrToken, newQrToken } from '../../shared/qr/qr-link.js';
import { expireQrTransactions } from '../../shared/repositories/qr-transactions.js';
import { newId } from '../../shared/platform/ids.js';
import { recordConfirmation } from '../../shared/repositories/invoices.js';
import { enqueueStamp } from '../../shared/invoices/enqueue-stamp.js';
import { QUEUES, jobId, type InvoicePayload } from '../../shared/platform/jobs.js';
import { createProducers } from '../../shared/platform/queues.js';
import { encryptionKeyring } from '../../shared/platform/crypto/encrypt-at-rest.js';
import { swPacClient } from '../../shared/adapters/pac/sw-pac-client.js';
import { satCatalogs } from '../../shared/sat/catalogs.js';
import { stampInvoiceJob, type StampDeps } from '../../workers/stamp-invoice.js';
import { BUYER, confirmReviewed, preview, linkQuery, newQrLink, queueEvents, stamped } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { runJob } from '../helpers/run-job.js';
import { call, expectError } from '../helpers/http.js';

describe('buyer flow: resolve, confirm, stamp', function () {
  // A test may wait for stamp jobs through all their attempts (see stamped()).
  this.timeout(90_000);
  let account: BootstrapResult;
  let events: QueueEvents;
  before(async () => {
    account = await harness().bootstrap();
    events = await queueEvents('stamp');
  });
  after(() => events.close());

  const detail = async (qrId: string) => (await call('GET', `/v1/qrs/${qrId}`, { headers: { 'X-API-Key': account.apiKey } })).body;
  const invoices = (qrId: string) => harness().deps.db('invoices').where({ transaction_id: qrId }).orderBy('created_at');

  it('resolve shows what the buyer reviews and moves PENDING to SCANNED once', async () => {
    const link = await newQrLink(account);
    const res = await call('GET', `/v1/public/qrs/resolve?${linkQuery(link)}`);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ status: 'SCANNED', currency: 'MXN' });
    expect(res.body.issuer).to.deep.equal({ rfc: 'EKU9003173C9', name: 'ESCUELA KEMPER URGATE' });
    expect(res.body.totals).to.deep.equal({ subtotal: 262, discount: 0, transferred_taxes: 40.32, withheld_taxes: 0, total: 302.32 });
    expect(res.body.operation_data[0]).to.include({ description: 'Gasolina regular', sat_unit_desc: 'Litro' });
    expect(res.body).to.not.have.any.keys('metadata', 'idempotency_key', 'sale_id', 'qr_base64');
    const first = await detail(link.qrId);
    expect(first.status).to.equal('SCANNED');
    expect(first.scanned_at).to.equal(res.body.scanned_at);
    const again = await call('GET', `/v1/public/qrs/resolve?${linkQuery(link)}`);
    expect(again.body.scanned_at).to.equal(first.scanned_at);
  });

  it('resolve refuses a tampered link (400), an unknown token (404) and an expired QR (410)', async () => {
    const link = await newQrLink(account);
    expectError(await call('GET', `/v1/public/qrs/resolve?${linkQuery({ ...link, m: `${link.m.startsWith('A') ? 'B' : 'A'}${link.m.slice(1)}` })}`), 400, 'invalid_signature');
    expectError(await call('GET', `/v1/public/qrs/resolve?${linkQuery({ ...link, v: '9' })}`), 400, 'unsupported_version');
    const unknown = signQrToken(newQrToken(), harness().deps.config.qrHmacKey);
    expectError(await call('GET', `/v1/public/qrs/resolve?${new URLSearchParams({ ...unknown })}`), 404, 'qr_not_found');
    await harness().deps.db('qr_transactions').where({ id: link.qrId }).update({ status: 'EXPIRED' });
    expectError(await call('GET', `/v1/public/qrs/resolve?${linkQuery(link)}`), 410, 'qr_expired');
  });

  it('confirm refuses bad tax data field by field and writes nothing', async () => {
    const link = await newQrLink(account);
    const res = await confirmReviewed(link, { rfc: 'URE189929TM6', name: 'Universidad Robotica Española SA de CV', tax_regime: '605', cfdi_use: 'D01' });
    expectError(res, 422, 'customer_invalid');
    const codes = (res.body.error.details as { field: string; code: string; source: string }[]).map((d) => `${d.field}:${d.code}:${d.source}`);
    expect(codes).to.include.members(['customer.rfc:rfc_invalid:service']);
    const company = await confirmReviewed(link, { name: 'Universidad Robotica Española SA de CV', tax_regime: '605', cfdi_use: 'D01' });
    const companyCodes = (company.body.error.details as { field: string; code: string }[]).map((d) => `${d.field}:${d.code}`);
    expect(companyCodes).to.include.members(['customer.name:name_has_company_suffix', 'customer.tax_regime:tax_regime_not_allowed', 'customer.cfdi_use:cfdi_use_not_allowed']);
    expectError(await confirmReviewed(link, { postal_code: '8699' }), 400, 'validation_failed');
    expect(await invoices(link.qrId)).to.have.length(0);
  });

  it('confirm answers 202, the worker seals and stamps, and the transaction is INVOICED with invoice and customer', async () => {
    const link = await newQrLink(account);
    const res = await confirmReviewed(link, { name: 'universidad  robotica española' });
    expect(res.status).to.equal(202);
    expect(res.body).to.include({ status: 'STAMPING', invoice: null });
    expect(await stamped(events, link.qrId)).to.include({ outcome: 'stamped' });

    const qr = await detail(link.qrId);
    expect(qr.status).to.equal('INVOICED');
    expect(qr.customer).to.deep.equal({ rfc: BUYER.rfc, name: BUYER.name, tax_regime: '601', postal_code: '86991' });
    expect(qr.invoice).to.include({ status: 'ACTIVE', total: 302.32, subtotal: 262 });
    expect(qr.invoice.uuid).to.match(/^[0-9A-F-]{36}$/);
    expect(qr.invoice.xml_url).to.match(/\/v1\/public\/invoices\/.+\.xml\?exp=\d+&sig=/);

    const row = (await invoices(link.qrId))[0];
    const xml = (await harness().deps.files.get(row.xml_file_key))!.data.toString('utf8');
    const doc = parseXml(xml);
    expect(attribute(doc, 'Folio')).to.equal(String(row.folio));
    expect(attribute(child(doc, 'cfdi:Receptor')!, 'Nombre')).to.equal(BUYER.name);
    expect(attribute(doc, 'Total')).to.equal('302.32');

    const status = await call('GET', `/v1/public/qrs/status?${linkQuery(link)}`);
    expect(status.body.status).to.equal('INVOICED');
    expect(status.body.confirmation.invoice.uuid).to.equal(qr.invoice.uuid);
    // The ticket alone does not lead to the files (see test/api/buyer-privacy.test.ts).
    expect(status.body.confirmation.invoice).to.not.have.any.keys('xml_url', 'pdf_url');
    const resolved = await call('GET', `/v1/public/qrs/resolve?${linkQuery(link)}`);
    expectError(resolved, 409, 'qr_already_invoiced');
    expect(resolved.body.error.invoice).to.include({ uuid: qr.invoice.uuid, issued_at: qr.invoice.issued_at });
    expect(resolved.body.error.invoice).to.not.have.any.keys('xml_url', 'pdf_url');
  });

  it('ten confirmations at once (double click, two devices) make one CFDI', async () => {
    const link = await newQrLink(account);
    const emails = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? BUYER.email : 'otro@example.test'));
    const answers = await Promise.all(emails.map((email) => confirmReviewed(link, { email })));
    await stamped(events, link.qrId);
    const rows = await invoices(link.qrId);
    expect(rows).to.have.length(1);
    // The same data as the confirmation that won gets its 202 again; other data 409.
    const won = (rows[0].customer as { email: string }).email;
    expect(answers.map((a, i) => (emails[i] === won ? a.status : a.body.error?.code))).to.deep.equal(emails.map((e) => (e === won ? 202 : 'already_confirmed')));
    expect(rows[0].status).to.equal('ACTIVE');
    // One stamping; a retry after a slow first answer gets that stamp back ("previously stamped"), not another CFDI.
    expect(harness().pac.calls.filter((c) => c.uuid === rows[0].uuid && c.outcome === 'stamped')).to.have.length(1);
  });

  it('a document identical to one already stamped gets its own stamp, sealed again with a later Fecha', async () => {
    // One RFC, one Serie, the same folio, second, buyer and items (two points of sale sharing a Serie) make
    // byte-identical CFDIs; the PAC answers the second with the first's stamp ("previously stamped").
    const [first, second] = [await newQrLink(account), await newQrLink(account)];
    for (const link of [first, second]) {
      expect((await confirmReviewed(link)).status).to.equal(202);
      await stamped(events, link.qrId);
    }
    const [a] = await invoices(first.qrId);
    const [b] = await invoices(second.qrId);
    await harness()
      .deps.db('invoices')
      .where({ id: b.id })
      .update({ status: 'STAMPING', uuid: null, xml_file_key: null, stamped_at: null, sealed_xml: a.sealed_xml, issued_local: a.issued_local });
    // Stamped by its batch (issue #40): no job of its own to remove, unless the PAC made it retry alone.
    await (await harness().producers.queue('stamp').getJob(jobId.stampInvoice(b.id)))?.remove();
    await enqueueStamp(harness().producers, b.id);
    expect(await stamped(events, second.qrId)).to.include({ outcome: 'stamped' });

    const [again] = await invoices(second.qrId);
    expect(again.status).to.equal('ACTIVE');
    expect(again.uuid).to.not.equal(a.uuid);
    expect(again.issued_local > a.issued_local, `${again.issued_local} after ${a.issued_local}`).to.equal(true);
    expect(
      harness()
        .pac.calls.filter((c) => c.uuid === a.uuid)
        .map((c) => c.outcome),
    ).to.deep.equal(['stamped', 'previously stamped']);
    expect((await detail(second.qrId)).invoice.uuid).to.equal(again.uuid);
  });

  it("two identical documents stamped at once: one keeps the PAC's stamp, the other is sealed again", async () => {
    // Twins are made in the same second, so they are stamped together (two points of sale, the scheduled global
    // invoices): each learns the UUID before either records it, and the second to record meets the unique index.
    const [first, second] = [await newQrLink(account), await newQrLink(account)];
    expect((await confirmReviewed(first)).status).to.equal(202);
    await stamped(events, first.qrId);
    const [a] = await invoices(first.qrId);
    expect(
      (await recordConfirmation(harness().deps.db, { invoiceId: newId('invoice'), transactionIds: [second.qrId], merchantId: account.merchantId, customer: BUYER })).ok,
    ).to.equal(true);
    const [b] = await invoices(second.qrId);
    // Both stamping a's sealed document, whose UUID none of our invoices holds yet.
    await harness()
      .deps.db('invoices')
      .whereIn('id', [a.id, b.id])
      .update({ status: 'STAMPING', uuid: null, xml_file_key: null, stamped_at: null, sealed_xml: a.sealed_xml, issued_local: a.issued_local });
    // Neither records before both have their answer from the PAC: the XML is stored just before recording.
    let open!: () => void;
    const bothAnswered = new Promise<void>((resolve) => (open = resolve));
    let waiting = 0;
    const { config, db, files } = harness().deps;
    const stored: string[] = [];
    // Their PDF jobs go to queues of their own that no worker serves: nothing of this test runs after it.
    const producers = await createProducers(harness().redis, config, `${config.queuePrefix}twins`);
    const deps: StampDeps = {
      db,
      producers,
      catalogs: satCatalogs(),
      keyring: encryptionKeyring(config),
      pac: swPacClient(harness().pac.url, harness().pac.token, config.pacTimeoutMs, `${harness().pac.url}/ConsultaCFDIService.svc`),
      files: {
        ...files,
        get: (key) => files.get(key),
        async put(...args) {
          if (++waiting === 2) open();
          await bothAnswered;
          const key = await files.put(...args);
          stored.push(key);
          return key;
        },
      },
    };
    let outcomes: PromiseSettledResult<{ outcome: string }>[];
    try {
      outcomes = await Promise.allSettled([a, b].map((row) => stampInvoiceJob(deps, { data: { invoiceId: row.id } } as Job<InvoicePayload>)));
    } finally {
      for (const queue of Object.values(QUEUES)) await producers.queue(queue).obliterate({ force: true });
      await producers.close();
    }
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value.outcome : String(o.reason)))).to.deep.equal(['stamped', 'stamped']);

    const rows = await harness().deps.db('invoices').whereIn('id', [a.id, b.id]);
    expect(rows.map((r) => r.status)).to.deep.equal(['ACTIVE', 'ACTIVE']);
    const kept = rows.find((r) => r.uuid === a.uuid);
    const resealed = rows.find((r) => r.uuid !== a.uuid);
    expect(kept, 'one keeps the stamp').to.not.equal(undefined);
    expect(resealed!.uuid).to.match(/^[0-9A-F-]{36}$/);
    expect(resealed!.issued_local > a.issued_local, `${resealed!.issued_local} after ${a.issued_local}`).to.equal(true);
    expect(
      harness()
        .pac.calls.filter((c) => c.uuid === a.uuid)
        .map((c) => c.outcome),
    ).to.deep.equal(['stamped', 'previously stamped', 'previously stamped']);
    // The XML stored for the stamp that lost to its twin is removed again; each invoice keeps its own.
    const own = new Set(rows.map((r) => r.xml_file_key));
    const lost = stored.filter((key) => !own.has(key));
    expect(stored).to.have.length(3);
    expect(lost).to.have.length(1);
    expect(await files.get(lost[0]!)).to.equal(undefined);
  });

  it('a PAC that times out twice and then answers stamps once', async () => {
    const link = await newQrLink(account);
    harness().pac.script({ kind: 'hang' }, { kind: 'status', status: 502 });
    expect((await confirmReviewed(link)).status).to.equal(202);
    expect(await stamped(events, link.qrId)).to.include({ outcome: 'stamped' });
    const [row] = await invoices(link.qrId);
    expect(row.status).to.equal('ACTIVE');
    expect((await detail(link.qrId)).status).to.equal('INVOICED');
  });

  it('a stamp whose answer was lost is recovered on retry with the same UUID, not stamped twice', async () => {
    const link = await newQrLink(account);
    harness().pac.script({ kind: 'stamp-and-hang' });
    expect((await confirmReviewed(link)).status).to.equal(202);
    await stamped(events, link.qrId);
    const [row] = await invoices(link.qrId);
    expect(
      harness()
        .pac.calls.filter((c) => c.uuid === row.uuid)
        .map((c) => c.outcome),
    ).to.deep.equal(['stamped, no answer', 'previously stamped']);
  });

  it("a PAC refusal of the buyer's name comes back at the field; the QR stays SCANNED and a corrected confirm succeeds", async () => {
    const link = await newQrLink(account);
    expect((await confirmReviewed(link, { name: 'UNIVERSIDAD ROBOTICA' })).status).to.equal(202);
    expect(await stamped(events, link.qrId)).to.include({ outcome: 'refused' });
    const status = (await call('GET', `/v1/public/qrs/status?${linkQuery(link)}`)).body;
    expect(status.status).to.equal('SCANNED');
    expect(status.confirmation.status).to.equal('REFUSED');
    expect(status.confirmation.error.details).to.deep.equal([
      {
        field: 'customer.name',
        code: 'legal_name_mismatch',
        source: 'pac',
        pac_code: 'CFDI40145',
        message: 'The name does not match the one SAT has for this RFC: write it exactly as on the tax-status certificate.',
      },
    ]);
    expect((await confirmReviewed(link)).status).to.equal(202);
    expect(await stamped(events, link.qrId)).to.include({ outcome: 'stamped' });
    expect((await invoices(link.qrId)).map((r) => r.status)).to.deep.equal(['REFUSED', 'ACTIVE']);
  });

  it('a refused confirmation does not burn a folio: the next attempts on the QR reuse it, the next sale takes the next one', async () => {
    const link = await newQrLink(account);
    expect((await confirmReviewed(link, { name: 'UNIVERSIDAD ROBOTICA' })).status).to.equal(202);
    expect(await stamped(events, link.qrId)).to.include({ outcome: 'refused' });
    expect((await confirmReviewed(link, { postal_code: '01000' })).status).to.equal(202);
    expect(await stamped(events, link.qrId)).to.include({ outcome: 'refused' });
    // The buyer corrects it from two devices at once: one CFDI, with the folio the refusals had.
    const answers = await Promise.all(Array.from({ length: 5 }, () => confirmReviewed(link)));
    expect(answers.map((a) => a.status)).to.deep.equal([202, 202, 202, 202, 202]);
    expect(await stamped(events, link.qrId)).to.include({ outcome: 'stamped' });
    const rows = await invoices(link.qrId);
    expect(rows.map((r) => r.status)).to.deep.equal(['REFUSED', 'REFUSED', 'ACTIVE']);
    expect(new Set(rows.map((r) => `${r.series}-${r.folio}`)).size, 'one Serie and folio').to.equal(1);
    const next = await newQrLink(account);
    expect((await confirmReviewed(next)).status).to.equal(202);
    await stamped(events, next.qrId);
    const [nextRow] = await invoices(next.qrId);
    expect(BigInt(nextRow.folio) > BigInt(rows[2].folio), 'a later sale takes a later folio').to.equal(true);
  });

  it('a QR whose confirmation is being stamped does not expire; it ends INVOICED', async () => {
    const link = await newQrLink(account);
    // The PAC holds the stamp until the expiry has run: no timer decides what is checked while stamping.
    let release!: () => void;
    harness().pac.script({ kind: 'held', until: new Promise<void>((resolve) => (release = resolve)) });
    try {
      expect((await confirmReviewed(link)).status).to.equal(202);
      await harness()
        .deps.db('qr_transactions')
        .where({ id: link.qrId })
        .update({ expires_at: new Date(Date.now() - 1000) });
      expect(await expireQrTransactions(harness().deps.db, { qrId: link.qrId })).to.deep.equal([]);
      expect((await invoices(link.qrId)).map((r) => r.status)).to.deep.equal(['STAMPING']);
    } finally {
      release();
    }
    await stamped(events, link.qrId);
    expect((await detail(link.qrId)).status).to.equal('INVOICED');
  });

  it('a confirmation whose stamp job was never queued is re-queued by the sweep from PostgreSQL and stamped', async () => {
    const link = await newQrLink(account);
    // What a failed enqueue after the commit leaves behind: the confirmation row, no job.
    const outcome = await recordConfirmation(harness().deps.db, { invoiceId: newId('invoice'), transactionIds: [link.qrId], merchantId: account.merchantId, customer: BUYER });
    expect(outcome.ok).to.equal(true);
    await harness()
      .deps.db('invoices')
      .where({ transaction_id: link.qrId })
      .update({ updated_at: new Date(Date.now() - 2 * 3600_000) });
    expect(await runJob('sweep-stamping', {}, events, 10_000)).to.deep.equal({ requeued: 1, stalled: 0 });
    expect(await stamped(events, link.qrId)).to.include({ outcome: 'stamped' });
    expect((await detail(link.qrId)).status).to.equal('INVOICED');
  });

  it('confirming an expired QR is 410 and writes nothing', async () => {
    const link = await newQrLink(account);
    await harness()
      .deps.db('qr_transactions')
      .where({ id: link.qrId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expectError(await confirmReviewed(link), 410, 'qr_expired');
    expect(await invoices(link.qrId)).to.have.length(0);
  });

  it('preview shows the totals for this buyer: a RESICO issuer withholds 1.25 % ISR from a company', async () => {
    const resico = await harness().bootstrap();
    await harness().deps.db('issuers').where({ id: resico.issuerId }).update({ tax_regime_code: '626' });
    const link = await newQrLink(resico);
    const company = await preview(link, {});
    expect(company.status).to.equal(200);
    // ISR 1.25 % of the two taxed concepts (215 + 37): 2.69 + 0.46 = 3.15 withheld.
    expect(company.body.totals).to.deep.equal({ subtotal: 262, discount: 0, transferred_taxes: 40.32, withheld_taxes: 3.15, total: 299.17 });
    const person = await preview(link, { rfc: 'CACX7605101P8', name: 'XOCHILT CASAS CHAVEZ', tax_regime: '612', postal_code: '36257', cfdi_use: 'G03' });
    expect(person.body.totals.withheld_taxes).to.equal(0);
  });
});
