import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { jobId } from '../../shared/platform/jobs.js';
import { confirmReviewed, linkQuery, newQrLink, queueEvents, stamped } from '../helpers/buyer.js';
import { mexicoLongDate } from '../../shared/domain/time-zone.js';
import type { ReceivedMail } from '../../fakes/smtp-server.js';
import { harness } from '../helpers/harness.js';
import { runJob } from '../helpers/run-job.js';
import { call, expectError } from '../helpers/http.js';
import type { QrCreateRequest } from '../../shared/qr/qr-request.js';
import { swPacClient } from '../../shared/adapters/pac/sw-pac-client.js';
import type { PacClient } from '../../shared/adapters/pac/pac-client.js';
import { encryptionKeyring } from '../../shared/platform/crypto/encrypt-at-rest.js';
import { pollCancellationsJob } from '../../workers/poll-cancellations.js';
import { giveUpCancellation, retryCancellation } from '../../shared/cancellation/attention-actions.js';
import { countCancellationsNeedingAttention, listCancellationsNeedingAttention } from '../../shared/repositories/invoice-cancellations.js';

const HOUR_MS = 3600_000;

/** One service of $2,000 + IVA: over the $1,000 SAT cancels without asking the receptor. */
const BIG_SALE: Partial<QrCreateRequest> = {
  amount: 2320,
  subtotal: 2000,
  operation_data: [
    {
      description: 'Mantenimiento',
      amount: 2000,
      quantity: 1,
      unit_price: 2000,
      sat_unit_key: 'E48',
      sat_product_service_key: '72101500',
      sat_tax_object_key: '02',
      taxes: [{ type: 'Traslado', tax: '002', factor: 'Tasa', rate: '0.160000', taxable_base: 2000, amount: 320 }],
    },
  ],
};

interface Stamped {
  uuid: string;
  qrId: string;
  invoiceId: string;
}

describe('invoice cancellation: DELETE /v1/qrs/invoices/{uuid}', function () {
  this.timeout(90_000);
  let account: BootstrapResult;
  let stampEvents: QueueEvents;
  let cancelEvents: QueueEvents;

  before(async () => {
    account = await harness().bootstrap();
    [stampEvents, cancelEvents] = await Promise.all([queueEvents('stamp'), queueEvents('cancel')]);
    // The merchant listens: its invoice.* events are written to the outbox.
    const endpoint = await call('POST', '/v1/webhooks/endpoints', { headers: { Authorization: `Bearer ${account.accessToken}` }, body: { url: 'http://127.0.0.1:9/hooks' } });
    expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(201);
  });
  after(async () => {
    await stampEvents.close();
    await cancelEvents.close();
  });

  const asMerchant = () => ({ 'X-API-Key': account.apiKey });
  const cancel = (uuid: string, body: unknown, headers: Record<string, string> = asMerchant()) => call('DELETE', `/v1/qrs/invoices/${uuid}`, { headers, body });
  const db = () => harness().deps.db;
  /** The first message the fake SMTP server received that matches, once it has arrived. */
  async function waitForMail(match: (m: ReceivedMail) => boolean): Promise<ReceivedMail> {
    for (let n = 1; ; n++) {
      const messages = await harness().smtp.waitForMessages(n, 30_000);
      const found = messages.find(match);
      if (found) return found;
      n = messages.length;
    }
  }

  async function stampedInvoice(overrides: Partial<QrCreateRequest> = {}): Promise<Stamped> {
    const link = await newQrLink(account, overrides);
    expect((await confirmReviewed(link)).status).to.equal(202);
    await stamped(stampEvents, link.qrId);
    const row = await db()('invoices').where({ transaction_id: link.qrId }).first('id', 'uuid', 'status');
    expect(row.status).to.equal('ACTIVE');
    return { uuid: row.uuid, qrId: link.qrId, invoiceId: row.id };
  }

  /** An invoice stamped `hours` ago, as far as both the service and SAT (the fake PAC) know. */
  async function age(invoice: Stamped, hours: number): Promise<void> {
    await db()('invoices')
      .where({ id: invoice.invoiceId })
      .update({ stamped_at: db().raw(`stamped_at - interval '${hours} hours'`) });
    harness().pac.backdate(invoice.uuid, hours);
  }

  async function sent(invoice: Stamped): Promise<unknown> {
    const row = await db()('invoice_cancellations').where({ invoice_id: invoice.invoiceId }).orderBy('requested_at', 'desc').first('id');
    const job = await harness().producers.queue('cancel').getJob(jobId.cancelInvoice(row.id));
    if (!job) throw new Error('no cancel job');
    const { pacAttempts, pacTimeoutMs } = harness().deps.config;
    return job.waitUntilFinished(cancelEvents, pacAttempts * pacTimeoutMs + 10_000);
  }

  async function poll(): Promise<unknown> {
    return runJob('poll-cancellations', {}, cancelEvents);
  }

  /** The poll as it runs at `now` (the worker's own handler, with the service's bounds), to drive time without waiting. */
  async function pollAt(now: Date, client?: PacClient) {
    const cfg = harness().deps.config;
    const pac = harness().pac;
    return pollCancellationsJob(
      {
        db: db(),
        pac: client ?? swPacClient(pac.url, pac.token, cfg.pacTimeoutMs, `${pac.url}/ConsultaCFDIService.svc`),
        files: harness().deps.files,
        keyring: encryptionKeyring(cfg),
        producers: harness().producers,
        bounds: { notFoundGraceMs: cfg.satNotFoundGraceMs, pendingMaxMs: cfg.cancellationPendingMaxMs },
      },
      now,
    );
  }

  const request = async (invoice: Stamped) =>
    (await db()('invoice_cancellations').where({ invoice_id: invoice.invoiceId }).orderBy('requested_at', 'desc').first()) as {
      id: string;
      status: string;
      status_since: Date;
      attention_cause: string | null;
      refusal: Record<string, unknown> | null;
    };

  /** The data of the merchant's latest invoice.cancellation_status_updated event for `invoice`. */
  async function lastStatusEvent(invoice: Stamped): Promise<{ status: string; cancellation: Record<string, unknown> }> {
    const row = (await db()('webhook_events')
      .where({ account_id: account.accountId, type: 'invoice.cancellation_status_updated' })
      .whereRaw("payload->'data'->>'uuid' = ?", [invoice.uuid])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .first('payload')) as { payload: { data: { status: string; cancellation: Record<string, unknown> } } } | undefined;
    if (!row) throw new Error(`no invoice.cancellation_status_updated event for ${invoice.uuid}`);
    return row.payload.data;
  }

  const seenByMerchant = async (invoice: Stamped) =>
    (await call('GET', `/v1/qrs/invoices/uuid/${invoice.uuid}/cancellation`, { headers: asMerchant() })).body as Record<string, unknown>;

  const state = async (invoice: Stamped) => ({
    invoice: (await db()('invoices').where({ id: invoice.invoiceId }).first('status')).status,
    qr: (await db()('qr_transactions').where({ id: invoice.qrId }).first('status')).status,
  });

  it('cancels a small invoice at once: 202, then CANCELLED with its QR, the acuse downloadable, and a repeat changes nothing', async () => {
    const invoice = await stampedInvoice();
    const res = await cancel(invoice.uuid, { motive: '02' });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    expect(res.body).to.include({
      uuid: invoice.uuid,
      invoice_status: 'CANCELLING',
      status: 'REQUESTED',
      motive: '02',
      acceptance: 'NOT_REQUIRED',
      acceptance_reason: 'amount_up_to_1000',
    });
    expect(await sent(invoice)).to.deep.include({ outcome: 'cancelled' });
    expect(await state(invoice)).to.deep.equal({ invoice: 'CANCELLED', qr: 'CANCELLED' });

    const seen = await call('GET', `/v1/qrs/invoices/uuid/${invoice.uuid}/cancellation`, { headers: { Authorization: `Bearer ${account.accessToken}` } });
    expect(seen.body).to.include({ invoice_status: 'CANCELLED', status: 'CANCELLED', acuse_available: true });
    const acuse = await call('GET', `/v1/qrs/invoices/uuid/${invoice.uuid}/cancellation-acuse`, { headers: asMerchant() });
    expect(acuse.status).to.equal(200);
    expect(Buffer.from(acuse.body.content, 'base64').toString('utf8')).to.contain(invoice.uuid);
    const transaction = await call('GET', `/v1/qrs/${invoice.qrId}`, { headers: asMerchant() });
    expect(transaction.body.status).to.equal('CANCELLED');
    expect(transaction.body.invoice.status).to.equal('CANCELLED');

    const calls = harness().pac.calls.length;
    const again = await cancel(invoice.uuid, { motive: '02' });
    expect(again.status).to.equal(200);
    expect(again.body).to.include({ status: 'CANCELLED', invoice_status: 'CANCELLED' });
    expect(harness().pac.calls.length).to.equal(calls);
    expectError(await cancel(invoice.uuid, { motive: '03' }), 409, 'cancellation_conflict');
    // The buyer's link now says the sale was cancelled.
    expect((await call('GET', `/v1/qrs/invoices/uuid/${invoice.uuid}/xml`, { headers: asMerchant() })).status).to.equal(200);
  });

  it("tells the buyer: the page says the invoice is void (UUID, dates), and an e-mail to the confirmation address says so with the acuse's date", async () => {
    const link = await newQrLink(account);
    const email = `void-${link.qrId}@example.test`;
    expect((await confirmReviewed(link, { email })).status).to.equal(202);
    await stamped(stampEvents, link.qrId);
    const row = await db()('invoices').where({ transaction_id: link.qrId }).first('id', 'uuid');
    const invoice = { uuid: row.uuid as string, qrId: link.qrId, invoiceId: row.id as string };
    await cancel(invoice.uuid, { motive: '02' });
    expect(await sent(invoice)).to.deep.include({ outcome: 'cancelled' });
    const acuse = (await db()('invoice_cancellations').where({ invoice_id: invoice.invoiceId }).first('acuse_file_key')).acuse_file_key as string;
    const acuseFecha = /Fecha="([^"]+)"/.exec((await harness().deps.files.get(acuse))!.data.toString('utf8'))![1]!;
    const day = mexicoLongDate(acuseFecha);

    const resolved = await call('GET', `/v1/public/qrs/resolve?${linkQuery(link)}`);
    expectError(resolved, 410, 'invoice_cancelled');
    expect(resolved.body.error.invoice).to.deep.include({ uuid: invoice.uuid, cancelled_at: acuseFecha });
    const page = await fetch(`${harness().baseUrl}/q?${linkQuery(link)}`);
    expect(page.status).to.equal(410);
    const html = await page.text();
    expect(html).to.include('La tienda canceló tu factura').and.include(invoice.uuid).and.include('no la uses ni la deduzcas').and.include(day);

    const mail = await waitForMail((m) => m.to.includes(email) && /cancelada/.test(m.headers.get('subject') ?? ''));
    const text = mail.body('text/plain')!;
    expect(text).to.include(invoice.uuid).and.include(`cancelada el ${day}`).and.include('no la uses ni la deduzcas');
  });

  it('says SAT will ask the receptor for an older invoice over $1,000; it waits, then the receptor accepts', async () => {
    const invoice = await stampedInvoice(BIG_SALE);
    await age(invoice, 24 * 6);
    const res = await cancel(invoice.uuid, { motive: '03' });
    expect(res.status).to.equal(202);
    expect(res.body).to.include({ acceptance: 'REQUIRED', acceptance_reason: 'receptor_must_accept' });
    expect(await sent(invoice)).to.deep.include({ outcome: 'pending' });
    expect(await state(invoice)).to.deep.equal({ invoice: 'CANCELLATION_PENDING', qr: 'INVOICED' });
    expect(await poll()).to.deep.equal({ resolved: 0, requeued: 0, needsAttention: 0 });

    harness().pac.receiverAnswers(invoice.uuid, 'accept');
    expect(await poll()).to.deep.equal({ resolved: 1, requeued: 0, needsAttention: 0 });
    expect(await state(invoice)).to.deep.equal({ invoice: 'CANCELLED', qr: 'CANCELLED' });
    const seen = await call('GET', `/v1/qrs/invoices/uuid/${invoice.uuid}/cancellation`, { headers: asMerchant() });
    expect(seen.body).to.include({ status: 'CANCELLED', sat_status: 'Cancelado con aceptación' });
  });

  it('a receptor who rejects leaves the invoice valid (CANCELLATION_REJECTED), and it can be asked again', async () => {
    const invoice = await stampedInvoice(BIG_SALE);
    await age(invoice, 24 * 6);
    await cancel(invoice.uuid, { motive: '02' });
    await sent(invoice);
    harness().pac.receiverAnswers(invoice.uuid, 'reject');
    await poll();
    expect(await state(invoice)).to.deep.equal({ invoice: 'CANCELLATION_REJECTED', qr: 'INVOICED' });
    const again = await cancel(invoice.uuid, { motive: '02' });
    expect(again.status).to.equal(202);
    expect(again.body).to.include({ status: 'REQUESTED', invoice_status: 'CANCELLING' });
    expect(await db()('invoice_cancellations').where({ invoice_id: invoice.invoiceId }).count({ n: '*' })).to.deep.equal([{ n: '2' }]);
  });

  it("refuses bad requests with 400, another merchant's invoice with 404, and writes nothing", async () => {
    const invoice = await stampedInvoice();
    expectError(await cancel(invoice.uuid, { motive: '05' }), 400, 'validation_failed');
    const noSubstitute = await cancel(invoice.uuid, { motive: '01' });
    expectError(noSubstitute, 400, 'validation_failed');
    expect(noSubstitute.body.error.details[0]).to.include({ field: 'substitution_uuid', code: 'required' });
    expectError(await cancel(invoice.uuid, { motive: '02', substitution_uuid: invoice.uuid }), 400, 'validation_failed');
    expectError(await call('DELETE', `/v1/qrs/invoices/${invoice.uuid}`, { headers: asMerchant() }), 400, 'body_required');
    const other = await harness().bootstrap();
    expectError(await cancel(invoice.uuid, { motive: '02' }, { 'X-API-Key': other.apiKey }), 404, 'invoice_not_found');
    expectError(await cancel('not-a-uuid', { motive: '02' }), 404, 'invoice_not_found');
    expectError(await cancel(invoice.uuid, { motive: '02' }, {}), 401, 'unauthorized');
    expect(await db()('invoice_cancellations').where({ invoice_id: invoice.invoiceId })).to.deep.equal([]);
    expect(await state(invoice)).to.deep.equal({ invoice: 'ACTIVE', qr: 'INVOICED' });
  });

  it('motive 01 needs a stamped replacement related with TipoRelacion 04; then both are in order', async () => {
    const invoice = await stampedInvoice();
    const unrelated = await stampedInvoice();
    const refused = await cancel(invoice.uuid, { motive: '01', substitution_uuid: unrelated.uuid });
    expectError(refused, 422, 'substitution_invalid');
    expect(refused.body.error.details[0]).to.include({ field: 'substitution_uuid', code: 'not_related' });
    expect((await cancel(invoice.uuid, { motive: '01', substitution_uuid: '00000000-0000-4000-8000-000000000000' })).body.error.details[0].code).to.equal('not_found');

    const replacement = await stampedInvoice({ related_cfdis: { tipo_relacion: '04', cfdis: [invoice.uuid] } });
    const res = await cancel(invoice.uuid, { motive: '01', substitution_uuid: replacement.uuid.toLowerCase() });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    expect(res.body).to.include({ motive: '01', substitution_uuid: replacement.uuid });
    expect(await sent(invoice)).to.deep.include({ outcome: 'cancelled' });
    expect(await state(invoice)).to.deep.equal({ invoice: 'CANCELLED', qr: 'CANCELLED' });
    expect(await state(replacement)).to.deep.equal({ invoice: 'ACTIVE', qr: 'INVOICED' });
  });

  it("a PAC down is retried; a PAC refusal ends the request as FAILED with SW's cause (messageDetail and its code) for the merchant, and the invoice ACTIVE again", async () => {
    const retried = await stampedInvoice();
    harness().pac.scriptCancel({ kind: 'status', status: 503 }, { kind: 'garbage' });
    await cancel(retried.uuid, { motive: '02' });
    expect(await sent(retried)).to.deep.include({ outcome: 'cancelled' });

    const refused = await stampedInvoice();
    // SW's answer: the generic CACFDI33 message, the cause in messageDetail.
    harness().pac.scriptCancel({ kind: 'refuse', code: 'CA300', message: 'El certificado no es válido.' });
    await cancel(refused.uuid, { motive: '02' });
    expect(await sent(refused)).to.deep.include({ outcome: 'refused', code: 'CA300' });
    expect(await state(refused)).to.deep.equal({ invoice: 'ACTIVE', qr: 'INVOICED' });
    const refusal = { code: 'CACFDI33', message: 'Problemas con el xml.', detail: 'CA300 - El certificado no es válido.', detail_code: 'CA300', source: 'pac' };
    expect(await seenByMerchant(refused)).to.deep.include({ status: 'FAILED', refusal, attention: null });
    expect((await request(refused)).refusal).to.deep.equal(refusal);
    expect(await lastStatusEvent(refused)).to.deep.include({ status: 'ACTIVE' });
    expect((await lastStatusEvent(refused)).cancellation).to.deep.include({ status: 'FAILED', refusal });
  });

  it("a CFDI SAT's status service does not know yet is NOT_FOUND_AT_SAT, asked again for the grace, then NEEDS_ATTENTION with an event; an operator sends it back to polling", async () => {
    const invoice = await stampedInvoice();
    harness().pac.notYetAtSat(invoice.uuid);
    await cancel(invoice.uuid, { motive: '02' });
    expect(await sent(invoice)).to.deep.include({ outcome: 'not-found' });
    expect(await state(invoice)).to.deep.equal({ invoice: 'CANCELLATION_PENDING', qr: 'INVOICED' });
    expect(await seenByMerchant(invoice)).to.deep.include({ status: 'NOT_FOUND_AT_SAT', invoice_status: 'CANCELLATION_PENDING', attention: null });
    const since = (await request(invoice)).status_since;
    const grace = harness().deps.config.satNotFoundGraceMs;
    expect(grace).to.equal(72 * HOUR_MS);

    // Within the grace it is asked again and stays.
    await pollAt(new Date(since.getTime() + grace - HOUR_MS));
    expect((await request(invoice)).status).to.equal('NOT_FOUND_AT_SAT');
    const before = await countCancellationsNeedingAttention(db());

    const after = new Date(since.getTime() + grace + HOUR_MS);
    expect((await pollAt(after)).needsAttention).to.be.at.least(1);
    const row = await request(invoice);
    expect(row).to.deep.include({ status: 'NEEDS_ATTENTION', attention_cause: 'not_found_at_sat' });
    expect(row.status_since.toISOString()).to.equal(after.toISOString());
    expect(await state(invoice)).to.deep.equal({ invoice: 'CANCELLATION_PENDING', qr: 'INVOICED' });
    const attention = { cause: 'not_found_at_sat', since: after.toISOString() };
    expect(await seenByMerchant(invoice)).to.deep.include({ status: 'NEEDS_ATTENTION', attention });
    expect((await lastStatusEvent(invoice)).cancellation).to.deep.include({ status: 'NEEDS_ATTENTION', attention });
    expect(await countCancellationsNeedingAttention(db())).to.equal(before + 1);
    const listed = (await listCancellationsNeedingAttention(db(), 1000)).find((c) => c.id === row.id);
    expect(listed).to.deep.equal({ id: row.id, invoiceId: invoice.invoiceId, merchantId: account.merchantId, cause: 'not_found_at_sat', since: after });
    // Not polled any more: SAT is not asked about it again.
    const asked = harness().pac.statusExpressions.length;
    await pollAt(new Date(after.getTime() + HOUR_MS));
    expect(
      harness()
        .pac.statusExpressions.slice(asked)
        .some((e) => e.includes(invoice.uuid)),
    ).to.equal(false);

    // The operator retries once SAT has it: back to polling, and the next round finds it cancelled.
    harness().pac.reachesSat(invoice.uuid);
    expect(await retryCancellation(db(), row.id)).to.deep.include({ status: 'PENDING', attention_cause: null });
    expect(await retryCancellation(db(), row.id), 'only from NEEDS_ATTENTION').to.equal(undefined);
    await pollAt(new Date());
    expect(await state(invoice)).to.deep.equal({ invoice: 'CANCELLED', qr: 'CANCELLED' });
    expect(await countCancellationsNeedingAttention(db())).to.equal(before);
  });

  it('giving up a request that needs attention makes it FAILED (operator) and the invoice ACTIVE; a new DELETE asks again', async () => {
    const invoice = await stampedInvoice();
    harness().pac.notYetAtSat(invoice.uuid);
    await cancel(invoice.uuid, { motive: '02' });
    expect(await sent(invoice)).to.deep.include({ outcome: 'not-found' });
    await pollAt(new Date((await request(invoice)).status_since.getTime() + harness().deps.config.satNotFoundGraceMs + HOUR_MS));
    const { id } = await request(invoice);
    expect((await request(invoice)).status).to.equal('NEEDS_ATTENTION');

    expect(await giveUpCancellation(db(), id)).to.deep.include({ status: 'FAILED', attention_cause: null });
    expect(await state(invoice)).to.deep.equal({ invoice: 'ACTIVE', qr: 'INVOICED' });
    const seen = await seenByMerchant(invoice);
    expect(seen).to.deep.include({ status: 'FAILED', invoice_status: 'ACTIVE', attention: null });
    expect(seen.refusal).to.deep.include({ code: 'given_up', source: 'operator' });
    expect(await giveUpCancellation(db(), id), 'final').to.equal(undefined);

    // SAT had cancelled it all along: asked again, the PAC answers 202 and the request ends CANCELLED.
    harness().pac.reachesSat(invoice.uuid);
    expect((await cancel(invoice.uuid, { motive: '02' })).status).to.equal(202);
    expect(await sent(invoice)).to.deep.include({ outcome: 'cancelled' });
    expect(await state(invoice)).to.deep.equal({ invoice: 'CANCELLED', qr: 'CANCELLED' });
  });

  it('a request waiting for the receptor long past the bound (CANCELLATION_PENDING_MAX_MS) needs attention instead of being polled forever', async () => {
    const invoice = await stampedInvoice(BIG_SALE);
    await age(invoice, 24 * 6);
    await cancel(invoice.uuid, { motive: '03' });
    expect(await sent(invoice)).to.deep.include({ outcome: 'pending' });
    const since = (await request(invoice)).status_since;
    const max = harness().deps.config.cancellationPendingMaxMs;
    expect(max).to.equal(10 * 24 * HOUR_MS);
    await pollAt(new Date(since.getTime() + max - HOUR_MS));
    expect((await request(invoice)).status).to.equal('PENDING');
    await pollAt(new Date(since.getTime() + max + HOUR_MS));
    expect(await request(invoice)).to.deep.include({ status: 'NEEDS_ATTENTION', attention_cause: 'pending_too_long' });
    expect(await state(invoice)).to.deep.equal({ invoice: 'CANCELLATION_PENDING', qr: 'INVOICED' });
    expect((await lastStatusEvent(invoice)).cancellation).to.deep.include({ status: 'NEEDS_ATTENTION' });
    // Let the receptor answer and the operator retry: the next round resolves it.
    harness().pac.receiverAnswers(invoice.uuid, 'reject');
    await retryCancellation(db(), (await request(invoice)).id);
    await pollAt(new Date());
    expect(await state(invoice)).to.deep.equal({ invoice: 'CANCELLATION_REJECTED', qr: 'INVOICED' });
  });

  it('N - 601 (SAT cannot read the expression asked with) needs attention at once, sat_rejected_expression: no wait mends it', async () => {
    const invoice = await stampedInvoice(BIG_SALE);
    await age(invoice, 24 * 6);
    await cancel(invoice.uuid, { motive: '03' });
    expect(await sent(invoice)).to.deep.include({ outcome: 'pending' });
    // As if the service built a wrong expression for this CFDI: the fake SAT answers N - 601 to it.
    const pac = harness().pac;
    const real = swPacClient(pac.url, pac.token, harness().deps.config.pacTimeoutMs, `${pac.url}/ConsultaCFDIService.svc`);
    const garbling: PacClient = { ...real, status: (query) => real.status(query.uuid === invoice.uuid ? { ...query, uuid: 'not-a-uuid' } : query) };
    const now = new Date();
    await pollAt(now, garbling);
    expect(await request(invoice)).to.deep.include({ status: 'NEEDS_ATTENTION', attention_cause: 'sat_rejected_expression' });
    expect(await seenByMerchant(invoice)).to.deep.include({ status: 'NEEDS_ATTENTION', attention: { cause: 'sat_rejected_expression', since: now.toISOString() } });
    expect(await giveUpCancellation(db(), (await request(invoice)).id)).to.deep.include({ status: 'FAILED' });
  });

  it("asks SAT's status service with the CFDI 4.0 expression of the invoice's QR", async () => {
    const invoice = await stampedInvoice();
    const xml = (await harness().deps.files.get((await db()('invoices').where({ id: invoice.invoiceId }).first('xml_file_key')).xml_file_key))!.data.toString('utf8');
    const seal = /\sSello="([^"]+)"/.exec(xml)![1]!;
    const asked = harness().pac.statusExpressions.length;
    await cancel(invoice.uuid, { motive: '02' });
    expect(await sent(invoice)).to.deep.include({ outcome: 'cancelled' });
    const expressions = harness()
      .pac.statusExpressions.slice(asked)
      .filter((e) => e.includes(invoice.uuid));
    expect(expressions).to.have.length(1);
    expect(expressions[0]).to.match(
      new RegExp(`^https://verificacfdi\\.facturaelectronica\\.sat\\.gob\\.mx/default\\.aspx\\?id=${invoice.uuid}&re=[A-Z&;Ñ0-9]+&rr=[A-Z&;Ñ0-9]+&tt=\\d+\\.\\d+&fe=`),
    );
    expect(expressions[0]!.endsWith(`&fe=${seal.slice(-8)}`)).to.equal(true);
  });

  it('a request whose job was lost is queued again by the poll from PostgreSQL', async () => {
    const invoice = await stampedInvoice();
    await cancel(invoice.uuid, { motive: '02' });
    await sent(invoice);
    // As if the enqueue after commit had failed a while ago.
    const row = await db()('invoice_cancellations').where({ invoice_id: invoice.invoiceId }).first('id');
    await db()('invoice_cancellations')
      .where({ id: row.id })
      .update({ status: 'REQUESTED', updated_at: db().raw(`now() - interval '5 minutes'`) });
    await db()('invoices').where({ id: invoice.invoiceId }).update({ status: 'CANCELLING' });
    await harness().producers.queue('cancel').remove(jobId.cancelInvoice(row.id));
    expect(await poll()).to.deep.include({ requeued: 1 });
    expect(await sent(invoice)).to.deep.include({ outcome: 'cancelled' });
    expect(await state(invoice)).to.deep.equal({ invoice: 'CANCELLED', qr: 'CANCELLED' });
  });
});
