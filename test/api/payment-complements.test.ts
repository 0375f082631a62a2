import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { cadenaOriginal } from '../../shared/domain/cfdi/cadena-original.js';
import { parseXml } from '../../shared/domain/cfdi/parse-xml.js';
import { jobId } from '../../shared/platform/jobs.js';
import { dec } from '../../shared/domain/money.js';
import { localDateTime } from '../../shared/domain/time-zone.js';
import { confirmReviewed, newQrLink, queueEventsOf, stamped } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';
import { satCadena, xsdInvalid } from '../helpers/sat-tools.js';

const PATH = '/v1/qrs/invoices/payment-complements';

describe('payment complements: POST /v1/qrs/invoices/payment-complements', function () {
  this.timeout(120_000);
  let account: BootstrapResult;
  let events: Record<'stamp' | 'email' | 'cancel', QueueEvents>;
  let closeEvents: () => Promise<void>;

  before(async () => {
    account = await harness().bootstrap();
    ({ events, close: closeEvents } = await queueEventsOf('stamp', 'email', 'cancel'));
  });
  after(() => closeEvents());

  const asMerchant = () => ({ 'X-API-Key': account.apiKey });
  const db = () => harness().deps.db;
  /** Now in the sales' zone: after the invoice's Fecha, not in the future. */
  const now = () => localDateTime(new Date(), 'America/Mexico_City');
  const pay = (related: Record<string, unknown>[], payment: Record<string, unknown> = {}, headers: Record<string, string> = asMerchant()) => {
    const amount = related.reduce((sum, r) => sum.plus(String(r.amount_paid)), dec(0)).toNumber();
    return call('POST', PATH, { headers, body: { payment: { date: now(), sat_payment_form: '03', currency: 'MXN', amount, ...payment }, related } });
  };

  /** A stamped invoice of the 302.32 sample sale, issued PPD (payment form 99) unless told otherwise. */
  async function invoice(method: 'PPD' | 'PUE' = 'PPD'): Promise<{ id: string; uuid: string }> {
    const link = await newQrLink(account, method === 'PPD' ? { sat_payment_method: 'PPD', sat_payment_form: '99' } : {});
    await confirmReviewed(link);
    await stamped(events.stamp, link.qrId);
    return db()('invoices').where({ transaction_id: link.qrId }).first('id', 'uuid');
  }

  async function waitFor(queue: 'stamp' | 'cancel', id: string): Promise<void> {
    const job = await harness().producers.queue(queue).getJob(id);
    const { pacAttempts, pacTimeoutMs } = harness().deps.config;
    await job!.waitUntilFinished(events[queue], pacAttempts * pacTimeoutMs + 10_000);
  }

  /** The complement once the stamp worker is done with it, and its stamped XML. */
  async function stampedComplement(id: string): Promise<{ body: any; xml: string }> {
    await waitFor('stamp', jobId.stampInvoice(id));
    const seen = await call('GET', `${PATH}/${id}`, { headers: asMerchant() });
    expect(seen.body.status, JSON.stringify(seen.body)).to.equal('ACTIVE');
    const xml = await call('GET', `/v1/qrs/invoices/uuid/${seen.body.uuid}/xml`, { headers: asMerchant() });
    return { body: seen.body, xml: Buffer.from(xml.body.content, 'base64').toString('utf8') };
  }

  async function cancel(uuid: string) {
    return call('DELETE', `/v1/qrs/invoices/${uuid}`, { headers: asMerchant(), body: { motive: '02' } });
  }

  async function cancelled(complementId: string, uuid: string): Promise<void> {
    const res = await cancel(uuid);
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    expect(res.body).to.include({ acceptance: 'NOT_REQUIRED' });
    const row = await db()('invoice_cancellations').where({ invoice_id: complementId }).first('id');
    await waitFor('cancel', jobId.cancelInvoice(row.id));
    expect((await call('GET', `${PATH}/${complementId}`, { headers: asMerchant() })).body.status).to.equal('CANCELLED');
  }

  const written = async () => ({
    complements: Number((await db()('invoices').where({ cfdi_type: 'P' }).count({ n: '*' }).first())?.n),
    allocations: Number((await db()('payment_allocations').count({ n: '*' }).first())?.n),
  });

  it("pays a PPD invoice in two installments: type P CFDIs valid for SAT's XSD and XSLT, balances chained, PDF and e-mail", async () => {
    const original = await invoice();
    const first = await pay([{ uuid: original.uuid.toLowerCase(), amount_paid: 100 }], { operation_number: 'SPEI-0001' });
    expect(first.status, JSON.stringify(first.body)).to.equal(202);
    expect(first.headers.get('location')).to.equal(`${PATH}/${first.body.id}`);
    expect(first.body).to.include({ type: 'P', status: 'STAMPING', uuid: null });
    expect(first.body.payment).to.include({ sat_payment_form: '03', currency: 'MXN', amount: 100, operation_number: 'SPEI-0001' });
    expect(first.body.related).to.deep.equal([{ uuid: original.uuid, installment: 1, previous_balance: 302.32, amount_paid: 100, remaining_balance: 202.32 }]);

    const one = await stampedComplement(first.body.id);
    expect(one.body.xml_url).to.be.a('string');
    const second = await pay([{ uuid: original.uuid, amount_paid: 202.32, installment: 2, previous_balance: 202.32 }]);
    expect(second.status, JSON.stringify(second.body)).to.equal(202);
    const two = await stampedComplement(second.body.id);
    expect(two.body.related).to.deep.equal([{ uuid: original.uuid, installment: 2, previous_balance: 202.32, amount_paid: 202.32, remaining_balance: 0 }]);

    for (const xml of [one.xml, two.xml]) {
      expect(xml).to.contain('TipoDeComprobante="P"').and.contain('UsoCFDI="CP01"').and.contain('Moneda="XXX"').and.contain('Exportacion="01"');
      expect(xml).not.to.contain('MetodoPago=').and.not.to.contain(' FormaPago=');
      expect(xml).to.contain(`IdDocumento="${original.uuid}"`);
    }
    // The sale's IVA (16 % of 252.00) in proportion to what each payment pays of 302.32.
    expect(one.xml).to.contain('<pago20:TrasladoDR BaseDR="83.36" ImpuestoDR="002" TipoFactorDR="Tasa" TasaOCuotaDR="0.160000" ImporteDR="13.34"/>');
    expect(two.xml).to.contain('<pago20:TrasladoDR BaseDR="168.64" ImpuestoDR="002" TipoFactorDR="Tasa" TasaOCuotaDR="0.160000" ImporteDR="26.98"/>');
    expect(one.xml).to.contain('NumParcialidad="1" ImpSaldoAnt="302.32" ImpPagado="100.00" ImpSaldoInsoluto="202.32" ObjetoImpDR="02"');
    expect(one.xml).to.contain('FormaDePagoP="03" MonedaP="MXN" TipoCambioP="1" Monto="100.00" NumOperacion="SPEI-0001"');
    expect(two.xml).to.contain('NumParcialidad="2" ImpSaldoAnt="202.32" ImpPagado="202.32" ImpSaldoInsoluto="0"');

    const dir = mkdtempSync(join(tmpdir(), 'payment-complement-'));
    const files = [one.xml, two.xml].map((xml, i) => {
      const file = join(dir, `p${i}.xml`);
      writeFileSync(file, xml);
      return file;
    });
    expect(await xsdInvalid(files)).to.equal('');
    for (const [i, file] of files.entries()) expect(cadenaOriginal(parseXml([one.xml, two.xml][i]!))).to.equal(await satCadena(file));

    const pdf = await call('GET', `/v1/qrs/invoices/uuid/${one.body.uuid}/pdf`, { headers: asMerchant() });
    expect(pdf.body.content_type).to.equal('application/pdf');
    await (await harness().producers.queue('email').getJob(jobId.emailInvoice(first.body.id)))!.waitUntilFinished(events.email, 30_000);
    const mail = harness().smtp.messages.find((m) => m.attachment(`${one.body.uuid}.pdf`));
    expect(mail!.headers.get('subject')).to.match(/^Tu comprobante de pago de /);
    expect(mail!.body('text/plain')).to.contain('Monto pagado: 100.00 MXN');

    // Settled: nothing more is owed.
    const more = await pay([{ uuid: original.uuid, amount_paid: 0.01 }]);
    expectError(more, 422, 'payment_complement_invalid');
    expect(more.body.error.details[0]).to.include({ field: 'related[0].amount_paid', code: 'exceeds_balance' });
  });

  it('refuses over-payment, PUE invoices, form 99, a payment short of what it pays, unknown and foreign invoices, and writes nothing', async () => {
    const [ppd, pue] = await Promise.all([invoice(), invoice('PUE')]);
    const before = await written();
    const detailsOf = async (res: Promise<{ status: number; body: any; headers: Headers }>) => {
      const answer = await res;
      expectError(answer, 422, 'payment_complement_invalid');
      return answer.body.error.details.map((d: { field: string; code: string }) => `${d.field} ${d.code}`);
    };
    expect(await detailsOf(pay([{ uuid: ppd.uuid, amount_paid: 302.33 }]))).to.deep.equal(['related[0].amount_paid exceeds_balance']);
    expect(await detailsOf(pay([{ uuid: pue.uuid, amount_paid: 10 }]))).to.deep.equal(['related[0].uuid not_ppd']);
    expect(await detailsOf(pay([{ uuid: ppd.uuid, amount_paid: 10 }], { sat_payment_form: '99', currency: 'XXX' }))).to.deep.equal([
      'payment.sat_payment_form not_allowed',
      'payment.currency not_allowed',
    ]);
    expect(await detailsOf(pay([{ uuid: ppd.uuid, amount_paid: 10 }], { amount: 9.99 }))).to.deep.equal(['payment.amount exceeds_payment']);
    expect(await detailsOf(pay([{ uuid: ppd.uuid, amount_paid: 10 }], { date: '2031-01-01' }))).to.deep.equal(['payment.date in_the_future']);
    expect(await detailsOf(pay([{ uuid: ppd.uuid, amount_paid: 10 }], { date: '2020-01-01T10:00:00' }))).to.deep.equal(['payment.date before_invoice']);
    expect(
      await detailsOf(
        pay([
          { uuid: ppd.uuid, amount_paid: 10 },
          { uuid: ppd.uuid, amount_paid: 10 },
        ]),
      ),
    ).to.deep.equal(['related[1].uuid duplicate']);
    expect(await detailsOf(pay([{ uuid: randomUUID(), amount_paid: 10 }]))).to.deep.equal(['related[0].uuid not_found']);
    const other = await harness().bootstrap();
    expect(await detailsOf(pay([{ uuid: ppd.uuid, amount_paid: 10 }], {}, { 'X-API-Key': other.apiKey }))).to.deep.equal(['related[0].uuid not_found']);

    expectError(await pay([{ uuid: ppd.uuid, amount_paid: 0 }]), 400, 'validation_failed');
    expectError(await pay([]), 400, 'validation_failed');
    expectError(await pay([{ uuid: ppd.uuid, amount_paid: 10 }], { date: '2025-02-30' }), 400, 'validation_failed');
    expectError(await pay([{ uuid: ppd.uuid, amount_paid: 10 }], {}, { ...asMerchant(), 'Idempotency-Key': 'not-a-uuid' }), 400, 'validation_failed');
    expectError(await pay([{ uuid: ppd.uuid, amount_paid: 10 }], {}, {}), 401, 'unauthorized');
    expect(await written()).to.deep.equal(before);
  });

  it('installment and previous_balance are assertions: a stale one is 409 balance_changed; an Idempotency-Key replays', async () => {
    const original = await invoice();
    const key = randomUUID();
    const withKey = { ...asMerchant(), 'Idempotency-Key': key };
    // A refusal keeps nothing, not even the key.
    expectError(await pay([{ uuid: original.uuid, amount_paid: 500 }], {}, withKey), 422, 'payment_complement_invalid');
    const body = [{ uuid: original.uuid, amount_paid: 50, installment: 1, previous_balance: 302.32 }];
    const answers = await Promise.all([1, 2, 3].map(() => pay(body, { date: now().slice(0, 10) }, withKey)));
    expect(answers.map((a) => a.status)).to.deep.equal([202, 202, 202]);
    expect(new Set(answers.map((a) => a.body.id)).size).to.equal(1);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).to.have.length(2);
    const first = answers.find((a) => !a.headers.get('idempotent-replayed'))!;
    expect(first.body.payment.date).to.match(/T12:00:00$/);

    const again = await pay(body, { date: now().slice(0, 10) }, withKey);
    expect(again.status).to.equal(202);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body.id).to.equal(first.body.id);
    expectError(await pay([{ ...body[0]!, amount_paid: 51 }], { date: now().slice(0, 10) }, withKey), 409, 'idempotency_key_reused');

    // The same payment without the key: its assertions no longer hold, so it is not paid twice.
    const stale = await pay(body);
    expectError(stale, 409, 'balance_changed');
    expect(stale.body.error.details.map((d: { field: string }) => d.field)).to.deep.equal(['related[0].installment', 'related[0].previous_balance']);
    const fresh = await pay([{ uuid: original.uuid, amount_paid: 50, installment: 2, previous_balance: 252.32 }]);
    expect(fresh.status, JSON.stringify(fresh.body)).to.equal(202);
    expect(await db()('payment_allocations').where({ invoice_id: original.id }).orderBy('installment').pluck('installment')).to.deep.equal([1, 2]);
  });

  it('five payments at once that each fit alone: only those that fit are recorded, the balance never below zero', async () => {
    const original = await invoice();
    const answers = await Promise.all(Array.from({ length: 5 }, () => pay([{ uuid: original.uuid, amount_paid: 100 }])));
    expect(answers.map((a) => a.status).sort()).to.deep.equal([202, 202, 202, 422, 422]);
    for (const refused of answers.filter((a) => a.status === 422)) {
      expect(refused.body.error.details[0]).to.include({ field: 'related[0].amount_paid', code: 'exceeds_balance' });
    }
    const rows = await db()('payment_allocations').where({ invoice_id: original.id }).orderBy('installment');
    expect(rows.map((r) => [r.installment, Number(r.previous_balance), Number(r.remaining_balance)])).to.deep.equal([
      [1, 302.32, 202.32],
      [2, 202.32, 102.32],
      [3, 102.32, 2.32],
    ]);
  });

  it('an invoice with a live complement cannot be cancelled; cancelling the complement frees it', async () => {
    const original = await invoice();
    const paid = await pay([{ uuid: original.uuid, amount_paid: 100 }]);
    const complement = await stampedComplement(paid.body.id);
    const blocked = await cancel(original.uuid);
    expectError(blocked, 409, 'related_cfdis_active');
    expect(blocked.body.error.message).to.contain(complement.body.uuid);
    await cancelled(paid.body.id, complement.body.uuid);
    expect((await cancel(original.uuid)).status).to.equal(202);
    // A cancelling invoice takes no payments.
    const late = await pay([{ uuid: original.uuid, amount_paid: 1 }]);
    expectError(late, 422, 'payment_complement_invalid');
    expect(late.body.error.details[0]).to.include({ field: 'related[0].uuid', code: 'not_active' });
  });

  it('a cancelled complement no longer counts and leaves its installment free; a credit note reduces the balance', async () => {
    const original = await invoice();
    const paid = await pay([{ uuid: original.uuid, amount_paid: 100 }]);
    const complement = await stampedComplement(paid.body.id);
    await cancelled(paid.body.id, complement.body.uuid);

    const note = await call('POST', '/v1/qrs/invoices/credit-notes', {
      headers: asMerchant(),
      body: { related: [{ uuid: original.uuid, amount: 50 }], sat_payment_form: '03', sat_payment_method: 'PUE' },
    });
    expect(note.status, JSON.stringify(note.body)).to.equal(202);
    const owed = dec(302.32).minus(note.body.related[0].amount).toNumber();
    const again = await pay([{ uuid: original.uuid, amount_paid: owed, installment: 1, previous_balance: owed }]);
    expect(again.status, JSON.stringify(again.body)).to.equal(202);
    expect(again.body.related[0]).to.include({ installment: 1, previous_balance: owed, remaining_balance: 0 });
  });

  it("is read with the merchant's key or its account's token, and by nobody else", async () => {
    const original = await invoice();
    const paid = await pay([{ uuid: original.uuid, amount_paid: 1 }], {}, { Authorization: `Bearer ${account.accessToken}` });
    expect(paid.status, JSON.stringify(paid.body)).to.equal(202);
    const other = await harness().bootstrap();
    expect((await call('GET', `${PATH}/${paid.body.id}`, { headers: asMerchant() })).body.related[0]).to.include({ installment: 1, amount_paid: 1 });
    expect((await call('GET', `${PATH}/${paid.body.id}`, { headers: { Authorization: `Bearer ${account.accessToken}` } })).status).to.equal(200);
    expectError(await call('GET', `${PATH}/${paid.body.id}`, { headers: { 'X-API-Key': other.apiKey } }), 404, 'payment_complement_not_found');
    expectError(await call('GET', `${PATH}/${paid.body.id}`, { headers: { Authorization: `Bearer ${other.accessToken}` } }), 404, 'payment_complement_not_found');
    expectError(await call('GET', `${PATH}/${paid.body.id}`), 401, 'unauthorized');
  });
});
