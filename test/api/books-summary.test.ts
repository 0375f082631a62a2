import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { ACCOUNTING_TAXES, accountingFacts } from '../../shared/domain/cfdi/accounting-facts.js';
import { dec, decimalText } from '../../shared/domain/money.js';
import { localDateTime } from '../../shared/domain/time-zone.js';
import { globalPeriod } from '../../shared/global-invoice/global-period.js';
import { jobId } from '../../shared/platform/jobs.js';
import { EXPORT_COLUMNS } from '../../shared/books/export-row.js';
import type { Customer } from '../../shared/invoices/customer.js';
import { BUYER, confirmReviewed, newQrLink, queueEventsOf, stamped, type QrLink } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call, callForm, expectError } from '../helpers/http.js';
import { xsdInvalid } from '../helpers/sat-tools.js';

const run = promisify(execFile);

type Row = Record<string, unknown>;

/** A buyer whose legal name holds what CSV must quote (a comma, double quotes) and accents; registered with the fake PAC. */
const HARDWARE_STORE: Customer = { ...BUYER, rfc: 'FCN800101AB9', name: 'FERRETERÍA "EL CLAVO", DEL NORTE', postal_code: '64000' };

/** The CSV as Python's csv module (RFC 4180 dialect "excel") reads it: a referee this project did not write. */
async function csvByPython(text: string): Promise<string[][]> {
  const dir = await mkdtemp(join(tmpdir(), 'books-csv-'));
  try {
    const path = join(dir, 'export.csv');
    await writeFile(path, text);
    const script = 'import csv, json, sys\nwith open(sys.argv[1], newline="", encoding="utf-8") as f:\n    print(json.dumps(list(csv.reader(f, strict=True))))';
    return JSON.parse((await run('python3', ['-c', script, path], { maxBuffer: 64 << 20 })).stdout) as string[][];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('the month adds up: GET /v1/qrs/invoices/summary (issue #32)', function () {
  this.timeout(240_000);
  let a: BootstrapResult;
  /** A second store of a's account: its own merchant (and store_uid), the same issuer. */
  let north: BootstrapResult;
  let b: BootstrapResult;
  let events: Record<'stamp' | 'cancel', QueueEvents>;
  let closeEvents: () => Promise<void>;

  const db = () => harness().deps.db;
  const key = (account: BootstrapResult) => ({ 'X-API-Key': account.apiKey });
  const bearer = (account: BootstrapResult) => ({ Authorization: `Bearer ${account.accessToken}` });
  const today = localDateTime(new Date(), 'America/Mexico_City').slice(0, 10);
  const monthStart = `${today.slice(0, 8)}01`;
  const monthEnd = (() => {
    const [y, m] = today.split('-').map(Number) as [number, number];
    return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
  })();
  const summary = (headers: Record<string, string>, query = `from=${monthStart}&to=${monthEnd}`) => call('GET', `/v1/qrs/invoices/summary?${query}`, { headers });

  /** What was made, by the sales' QR ids and the CFDIs' rows. */
  const made = {} as {
    single: QrLink;
    multi: QrLink[];
    ppd: QrLink;
    cancelledSale: QrLink;
    global: QrLink[];
    expired: QrLink;
    late: QrLink;
    open: QrLink;
    singleInvoice: Row;
    multiInvoice: Row;
    ppdInvoice: Row;
    cancelledInvoice: Row;
    globalInvoice: Row;
    creditNote: Row;
    complement: Row;
    /** What the credit note credits its invoice, as recorded (its total, taxes rounded line by line). */
    credited: string;
    /** The north store's sales: one invoiced to HARDWARE_STORE, one still open. */
    northSold: QrLink;
    northOpen: QrLink;
    northInvoice: Row;
  };

  const invoiceOf = (link: QrLink) => db()('invoices').where({ transaction_id: link.qrId }).whereNot({ status: 'REFUSED' }).first();
  async function waitFor(queue: 'stamp' | 'cancel', id: string): Promise<void> {
    const job = await harness().producers.queue(queue).getJob(id);
    await job!.waitUntilFinished(events[queue], 60_000);
  }
  async function invoiced(link: QrLink, extra: { additional_tickets?: string[] } = {}, customer: Partial<Customer> = {}): Promise<Row> {
    const res = await confirmReviewed(link, customer, extra);
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    await stamped(events.stamp, link.qrId);
    const row = await invoiceOf(link);
    expect(row.status).to.equal('ACTIVE');
    return row as Row;
  }
  /** As if the sale's month had closed 40 days ago with nobody claiming it. */
  async function inClosedPeriod(link: QrLink, status?: string): Promise<void> {
    const period = globalPeriod(new Date(Date.now() - 40 * 86_400_000), '04');
    await db()('qr_transactions')
      .where({ id: link.qrId })
      .update({
        global_periodicity: '04',
        global_period_end: period.end,
        expires_at: new Date(period.end.getTime() - 60_000),
        ...(status ? { status, expired_at: new Date() } : {}),
      });
  }

  /** A new store of the account as its owner makes one: a merchant of its issuer, with its API key and the issuer's CSD. */
  async function newStore(account: BootstrapResult, name: string): Promise<BootstrapResult> {
    const created = await call('POST', '/v1/qrs/merchants', { headers: bearer(account), body: { issuerId: account.issuerId, merchantName: name } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const file = (path: string) => ({ data: Buffer.from(readFileSync(new URL(`../../data/sat/test-csd/${path}`, import.meta.url))), fileName: path });
    const csd = await callForm('POST', `/v1/qrs/merchants/${created.body.merchantId as string}/invoice-mode`, account.accessToken, {
      'csdDataRequest.cerFile': file('EKU9003173C9.cer'),
      'csdDataRequest.keyFile': file('EKU9003173C9.key'),
      'csdDataRequest.password': '12345678a',
    });
    expect(csd.status, JSON.stringify(csd.body)).to.equal(201);
    return { ...account, merchantId: created.body.merchantId as string, storeUid: created.body.externalMerchantId as string, apiKey: created.body.apiKey as string };
  }

  before(async () => {
    [a, b] = [await harness().bootstrap(), await harness().bootstrap()];
    north = await newStore(a, 'Sucursal Norte');
    expect(north.storeUid).to.not.equal(a.storeUid);
    harness().pac.register({ rfc: HARDWARE_STORE.rfc, name: HARDWARE_STORE.name, zip: HARDWARE_STORE.postal_code, regimes: [HARDWARE_STORE.tax_regime] });
    ({ events, close: closeEvents } = await queueEventsOf('stamp', 'cancel'));

    // Unclaimed sales of a closed period, reported in a global invoice.
    made.global = [await newQrLink(a), await newQrLink(a)];
    for (const link of made.global) await inClosedPeriod(link);
    const issuerId = (await db()('merchants').where({ id: a.merchantId }).first('issuer_id')).issuer_id as string;
    const reported = await call('POST', `/v1/qrs/issuers/${issuerId}/global-invoices`, { headers: bearer(a), body: {} });
    expect(reported.status, JSON.stringify(reported.body)).to.equal(201);
    expect(reported.body.items).to.have.length(1);
    await waitFor('stamp', jobId.stampInvoice(reported.body.items[0].id as string));
    made.globalInvoice = await db()('invoices').where({ id: reported.body.items[0].id }).first();

    // One ticket invoiced; three tickets in one invoice; a PPD invoice paid in part; an invoice cancelled.
    made.single = await newQrLink(a);
    made.singleInvoice = await invoiced(made.single);
    made.multi = [await newQrLink(a), await newQrLink(a), await newQrLink(a)];
    const code = async (link: QrLink) => (await call('GET', `/v1/qrs/${link.qrId}`, { headers: key(a) })).body.short_code as string;
    made.multiInvoice = await invoiced(made.multi[0]!, { additional_tickets: [await code(made.multi[1]!), await code(made.multi[2]!)] });
    made.ppd = await newQrLink(a, { sat_payment_method: 'PPD', sat_payment_form: '99' });
    made.ppdInvoice = await invoiced(made.ppd);
    made.cancelledSale = await newQrLink(a);
    made.cancelledInvoice = await invoiced(made.cancelledSale);
    expect((await call('DELETE', `/v1/qrs/invoices/${made.cancelledInvoice.uuid as string}`, { headers: key(a), body: { motive: '02' } })).status).to.equal(202);
    const request = await db()('invoices')
      .join('invoice_cancellations as c', 'c.invoice_id', 'invoices.id')
      .where('invoices.id', made.cancelledInvoice.id as string)
      .first('c.id');
    await waitFor('cancel', jobId.cancelInvoice(request.id as string));
    made.cancelledInvoice = await db()('invoices').where({ id: made.cancelledInvoice.id }).first();
    expect(made.cancelledInvoice.status).to.equal('CANCELLED');

    // A credit note on the single invoice, a payment complement on the PPD one.
    const credit = await call('POST', '/v1/qrs/invoices/credit-notes', {
      headers: key(a),
      body: { related: [{ uuid: made.singleInvoice.uuid, amount: 116 }], sat_payment_form: '03', sat_payment_method: 'PUE' },
    });
    expect(credit.status, JSON.stringify(credit.body)).to.equal(202);
    await waitFor('stamp', jobId.stampInvoice(credit.body.id as string));
    made.creditNote = await db()('invoices').where({ id: credit.body.id }).first();
    made.credited = (await db()('credit_allocations').where({ credit_note_id: credit.body.id }).first('amount')).amount as string;
    const payment = await call('POST', '/v1/qrs/invoices/payment-complements', {
      headers: key(a),
      body: {
        payment: { date: localDateTime(new Date(), 'America/Mexico_City'), sat_payment_form: '03', currency: 'MXN', amount: 100 },
        related: [{ uuid: made.ppdInvoice.uuid, amount_paid: 100 }],
      },
    });
    expect(payment.status, JSON.stringify(payment.body)).to.equal(202);
    await waitFor('stamp', jobId.stampInvoice(payment.body.id as string));
    made.complement = await db()('invoices').where({ id: payment.body.id }).first();
    for (const row of [made.creditNote, made.complement]) expect(row.status).to.equal('ACTIVE');

    // Expired unclaimed in a period still open (not yet due); expired in a closed period nobody reported; still open.
    made.expired = await newQrLink(a);
    await db()('qr_transactions').where({ id: made.expired.qrId }).update({ status: 'EXPIRED', expired_at: new Date() });
    made.late = await newQrLink(a);
    await inClosedPeriod(made.late, 'EXPIRED');
    made.open = await newQrLink(a);
    // The north store: a sale invoiced to a buyer whose name CSV must quote, and an open one.
    made.northSold = await newQrLink(north);
    made.northInvoice = await invoiced(made.northSold, {}, HARDWARE_STORE);
    made.northOpen = await newQrLink(north);
    // Another merchant's sale and invoice: never in a's summary.
    await invoiced(await newQrLink(b));
  });
  after(() => closeEvents());

  /** The sum of the sales' amounts as the API writes money. */
  async function salesTotal(links: QrLink[]): Promise<{ count: number; total: string }> {
    const amounts = (await db()('qr_transactions')
      .whereIn(
        'id',
        links.map((l) => l.qrId),
      )
      .pluck('amount')) as string[];
    return { count: links.length, total: decimalText(amounts.reduce((sum, x) => sum.plus(x), dec(0))) };
  }

  /** The figures of a group of CFDIs as their rows and sealed documents say them. */
  function cfdiFigures(rows: Row[]) {
    const sum = (values: (string | null)[]) => decimalText(values.reduce((s, v) => s.plus(v ?? '0'), dec(0)));
    const facts = rows.map((r) => accountingFacts(r.sealed_xml as string));
    return {
      count: rows.length,
      subtotal: sum(rows.map((r) => r.subtotal as string)),
      discount: sum(rows.map((r) => r.discount as string | null)),
      total: sum(rows.map((r) => r.total as string)),
      taxes: Object.fromEntries(ACCOUNTING_TAXES.map((t) => [t.column, sum(facts.map((f) => f.taxes[t.column]))])),
    };
  }

  it('adds up a month of mixed activity, figure by figure, and names the one sale nobody reported', async () => {
    const res = await summary(key(a));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.period).to.deep.equal({ from: monthStart, to: monthEnd, time_zone: 'America/Mexico_City' });
    expect(res.body.items).to.have.length(1);
    const [m] = res.body.items;
    const issuer = await db()('merchants').join('issuers', 'issuers.id', 'merchants.issuer_id').where('merchants.id', a.merchantId).first('issuers.id', 'issuers.rfc');
    expect(m).to.include({ merchant_id: a.merchantId });
    expect(m.issuer).to.deep.equal({ id: issuer.id, rfc: issuer.rfc });

    const all = [made.single, ...made.multi, made.ppd, made.cancelledSale, ...made.global, made.expired, made.late, made.open];
    expect(m.sales).to.deep.equal([
      {
        currency: 'MXN',
        recorded: await salesTotal(all),
        invoiced: await salesTotal([made.single, ...made.multi, made.ppd]),
        global_invoice: await salesTotal(made.global),
        expired_unclaimed: await salesTotal([made.expired, made.late]),
        cancelled: await salesTotal([made.cancelledSale]),
        open: await salesTotal([made.open]),
      },
    ]);
    expect(m.sales[0].recorded.count).to.equal(11);

    expect(m.cfdis).to.deep.equal([
      { cfdi_type: 'E', cancelled: false, currency: 'MXN', ...cfdiFigures([made.creditNote]) },
      { cfdi_type: 'I', cancelled: false, currency: 'MXN', ...cfdiFigures([made.globalInvoice, made.singleInvoice, made.multiInvoice, made.ppdInvoice]) },
      { cfdi_type: 'I', cancelled: true, currency: 'MXN', ...cfdiFigures([made.cancelledInvoice]) },
      { cfdi_type: 'P', cancelled: false, currency: 'XXX', ...cfdiFigures([made.complement]) },
    ]);
    const valid = m.cfdis[1];
    expect(valid.count).to.equal(4);
    expect(dec(valid.taxes.iva_transferred).greaterThan(0)).to.equal(true);

    expect(m.credit_notes).to.deep.equal([
      {
        invoice_id: made.singleInvoice.id,
        invoice_uuid: made.singleInvoice.uuid,
        invoice_total: decimalText(made.singleInvoice.total as string),
        documents: 1,
        amount: decimalText(made.credited),
        amount_all: decimalText(made.credited),
      },
    ]);
    expect(m.payment_complements).to.deep.equal([
      {
        invoice_id: made.ppdInvoice.id,
        invoice_uuid: made.ppdInvoice.uuid,
        invoice_total: decimalText(made.ppdInvoice.total as string),
        documents: 1,
        amount: '100.00',
        amount_all: '100.00',
        remaining_balance: decimalText(dec(made.ppdInvoice.total as string).minus(100)),
      },
    ]);

    const lateSale = (await db()('qr_transactions').where({ id: made.late.qrId }).first('sale_id')).sale_id as string;
    expect(m.differences).to.deep.equal([
      {
        code: 'sale_not_reported',
        message: `Sale ${lateSale} was neither invoiced nor reported in a global invoice, and its period has closed.`,
        qr_id: made.late.qrId,
        sale_id: lateSale,
      },
    ]);
    expect(m.differences_total).to.equal(1);

    // The north store is its own merchant (same issuer): its month apart, never in a's figures above.
    const northRes = await summary(key(north));
    expect(northRes.status, JSON.stringify(northRes.body)).to.equal(200);
    expect(northRes.body.items).to.have.length(1);
    const [n] = northRes.body.items;
    expect(n).to.include({ merchant_id: north.merchantId });
    expect(n.issuer).to.deep.equal(m.issuer);
    expect(n.sales).to.deep.equal([
      {
        currency: 'MXN',
        recorded: await salesTotal([made.northSold, made.northOpen]),
        invoiced: await salesTotal([made.northSold]),
        global_invoice: await salesTotal([]),
        expired_unclaimed: await salesTotal([]),
        cancelled: await salesTotal([]),
        open: await salesTotal([made.northOpen]),
      },
    ]);
    expect(n.cfdis).to.deep.equal([{ cfdi_type: 'I', cancelled: false, currency: 'MXN', ...cfdiFigures([made.northInvoice]) }]);
    expect(n).to.deep.include({ credit_notes: [], payment_complements: [], differences: [], differences_total: 0 });

    // The account's bearer token: each of its stores as that store's own key answers it, or the one named.
    const accountWide = await summary(bearer(a));
    expect(accountWide.body.period).to.deep.equal(res.body.period);
    expect(accountWide.body.items).to.have.length(2).and.to.have.deep.members([m, n]);
    expect((await summary(bearer(a), `from=${monthStart}&to=${monthEnd}&merchant_id=${a.merchantId}`)).body).to.deep.equal(res.body);
    expect((await summary(bearer(a), `from=${monthStart}&to=${monthEnd}&merchant_id=${north.merchantId}`)).body).to.deep.equal(northRes.body);
    // A day is the merchant's: the period before this month holds none of it.
    const before = await summary(key(a), `from=2020-01-01&to=2020-01-31&time_zone=UTC`);
    expect(before.body.items[0]).to.deep.include({ sales: [], cfdis: [], credit_notes: [], payment_complements: [], differences: [], differences_total: 0 });
  });

  it("holds the same month in the books: both lists page by page and by store, the export row by row as JSON lines and as CSV, the ZIP's XMLs byte for byte and valid", async () => {
    const range = `created_from=${monthStart}&created_to=${monthEnd}`;
    async function walk(path: string, headers: Record<string, string> = key(a), filter = ''): Promise<Record<string, unknown>[]> {
      const rows: Record<string, unknown>[] = [];
      for (let cursor: string | null = null, pages = 0; pages < 20; pages++) {
        const res = await call('GET', `${path}?${range}${filter}&size=3${cursor ? `&cursor=${cursor}` : ''}`, { headers });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        rows.push(...(res.body.content as Record<string, unknown>[]));
        cursor = res.body.next_cursor as string | null;
        if (!cursor) return rows;
      }
      throw new Error(`${path}: more than 20 pages`);
    }
    const qrIdsOf = async (headers: Record<string, string>, filter = '') => (await walk('/v1/qrs', headers, filter)).map((q) => q.qr_id);
    const uuidsOf = async (headers: Record<string, string>, filter = '') => (await walk('/v1/qrs/invoices', headers, filter)).map((i) => i.uuid);
    const sales = [made.single, ...made.multi, made.ppd, made.cancelledSale, ...made.global, made.expired, made.late, made.open].map((l) => l.qrId);
    const northSales = [made.northSold, made.northOpen].map((l) => l.qrId);
    expect(await qrIdsOf(key(a))).to.have.members(sales);
    expect(await qrIdsOf(key(north))).to.have.members(northSales);
    expect(await qrIdsOf(bearer(a))).to.have.members([...sales, ...northSales]);
    const cfdis = [made.globalInvoice, made.singleInvoice, made.multiInvoice, made.ppdInvoice, made.cancelledInvoice, made.creditNote, made.complement];
    const uuids = cfdis.map((c) => c.uuid as string);
    const northUuid = made.northInvoice.uuid as string;
    expect(await uuidsOf(key(a))).to.have.members(uuids);
    expect(await uuidsOf(key(north))).to.deep.equal([northUuid]);
    expect(await uuidsOf(bearer(a))).to.have.members([...uuids, northUuid]);

    // By store: a store is a merchant, named by its external id or its id: each store's sales and every
    // CFDI it issued (its credit notes and payment complements too, which cover no sale).
    const byStore = (storeUid: string) => `&store_uid=${storeUid}`;
    expect(await qrIdsOf(bearer(a), byStore(north.storeUid))).to.have.members(northSales);
    expect(await qrIdsOf(bearer(a), byStore(north.merchantId))).to.have.members(northSales);
    expect(await qrIdsOf(bearer(a), byStore(a.storeUid))).to.have.members(sales);
    expect(await qrIdsOf(key(a), byStore(north.storeUid))).to.deep.equal([]);
    expect(await uuidsOf(bearer(a), byStore(north.storeUid))).to.deep.equal([northUuid]);
    expect(await uuidsOf(bearer(a), byStore(a.storeUid))).to.have.members(uuids);
    expect(await uuidsOf(bearer(a), byStore(a.merchantId))).to.have.members(uuids);

    type ExportLine = { uuid: string; kind: string; total: string; sale_ids: string[]; global_tickets: string | null; status: string; receptor_name: string } & Record<
      string,
      unknown
    >;
    const exported = async (format: 'jsonl' | 'csv', headers: Record<string, string>, filter = '') => {
      const res = await fetch(`${harness().baseUrl}/v1/qrs/invoices/export?format=${format}&${range}${filter}`, { headers });
      expect(res.status).to.equal(200);
      return res.text();
    };
    const jsonLines = (text: string) =>
      text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as ExportLine);
    const rows = jsonLines(await exported('jsonl', key(a)));
    expect(rows.map((r) => r.uuid)).to.have.members(uuids);
    const row = (uuid: unknown) => rows.find((r) => r.uuid === uuid)!;
    const saleId = async (link: QrLink) => (await db()('qr_transactions').where({ id: link.qrId }).first('sale_id')).sale_id as string;
    expect(row(made.multiInvoice.uuid).sale_ids).to.deep.equal(await Promise.all(made.multi.map(saleId)));
    expect(row(made.globalInvoice.uuid)).to.include({ kind: 'global_invoice', global_tickets: '2' });
    expect(row(made.cancelledInvoice.uuid).status).to.equal('CANCELLED');
    for (const c of cfdis) expect(dec(row(c.uuid).total).equals(dec(accountingFacts(c.sealed_xml as string).total)), String(c.uuid)).to.equal(true);
    const northRows = jsonLines(await exported('jsonl', bearer(a), byStore(north.storeUid)));
    expect(northRows.map((r) => [r.uuid, r.receptor_name, r.sale_ids])).to.deep.equal([[northUuid, HARDWARE_STORE.name, [await saleId(made.northSold)]]]);

    // The CSV of the account's month, as Python's csv module reads it: the JSON lines' rows in their order,
    // field for field (lists space-separated, absent values empty), money as the CFDI's decimal text.
    const accountLines = jsonLines(await exported('jsonl', bearer(a)));
    const csvText = await exported('csv', bearer(a));
    const [header, ...records] = await csvByPython(csvText);
    expect(header).to.deep.equal([...EXPORT_COLUMNS]);
    expect(records)
      .to.have.length(accountLines.length)
      .and.to.have.length(cfdis.length + 1);
    const asCsvText = (value: unknown): string => {
      if (value === null) return '';
      if (Array.isArray(value)) return value.map((v: string | { type: string; uuid: string }) => (typeof v === 'string' ? v : `${v.type}:${v.uuid}`)).join(' ');
      return value as string;
    };
    records.forEach((record, i) => {
      const line = accountLines[i]!;
      expect(Object.fromEntries(EXPORT_COLUMNS.map((c, k) => [c, record[k]])), line.uuid).to.deep.equal(Object.fromEntries(EXPORT_COLUMNS.map((c) => [c, asCsvText(line[c])])));
    });
    const csvRow = (uuid: string) => Object.fromEntries(EXPORT_COLUMNS.map((c, k) => [c, records.find((r) => r[1] === uuid)![k]]));
    expect(csvRow(northUuid).receptor_name).to.equal('FERRETERÍA "EL CLAVO", DEL NORTE');
    expect(csvText).to.include(',"FERRETERÍA ""EL CLAVO"", DEL NORTE",');
    expect(csvRow(made.singleInvoice.uuid as string).receptor_name).to.equal(BUYER.name);
    expect(csvRow(made.creditNote.uuid as string).related_uuids).to.equal(`01:${made.singleInvoice.uuid as string}`);
    for (const c of [...cfdis, made.northInvoice]) {
      const facts = accountingFacts(c.sealed_xml as string);
      expect(csvRow(c.uuid as string), String(c.uuid)).to.include({ total: facts.total, subtotal: facts.subtotal, iva_transferred: facts.taxes.iva_transferred ?? '' });
    }
    expect(csvRow(made.singleInvoice.uuid as string).total).to.match(/^\d+\.\d{2}$/);
    expect(csvText.split('\r\n')).to.have.length(records.length + 2);

    const exportsEvents = await queueEventsOf('exports');
    const dir = await mkdtemp(join(tmpdir(), 'books-month-'));
    try {
      const asked = await call('POST', '/v1/qrs/invoices/exports', { headers: key(a), body: { created_from: monthStart, created_to: monthEnd } });
      expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
      const job = await harness()
        .producers.queue('exports')
        .getJob(jobId.buildInvoiceExport(asked.body.export_id as string));
      await job!.waitUntilFinished(exportsEvents.events.exports, 120_000);
      const ready = await call('GET', `/v1/qrs/invoices/exports/${asked.body.export_id as string}`, { headers: key(a) });
      expect(ready.body.status).to.equal('READY');
      const zip = await fetch((ready.body.download_url as string).replace(harness().deps.config.publicBaseUrl, harness().baseUrl));
      expect(zip.status).to.equal(200);
      const path = join(dir, 'month.zip');
      await writeFile(path, Buffer.from(await zip.arrayBuffer()));
      await run('unzip', ['-q', '-d', join(dir, 'x'), path]);
      const all = (await run('zipinfo', ['-1', path])).stdout.trim().split('\n');
      // Beside the CFDIs: the manifest, and the acuse of the cancelled one (issue #39).
      expect(all).to.include('manifest.csv');
      expect(all.filter((n) => n.endsWith('_acuse.xml'))).to.deep.equal([`${all.find((n) => n.endsWith(`_${made.cancelledInvoice.uuid as string}.xml`))!.slice(0, -4)}_acuse.xml`]);
      const names = all.filter((n) => n.endsWith('.xml') && !n.endsWith('_acuse.xml'));
      expect(names).to.have.length(cfdis.length);
      const manifest = (await readFile(join(dir, 'x', 'manifest.csv'), 'utf8')).split('\r\n');
      expect(manifest.find((l) => l.includes(made.cancelledInvoice.uuid as string))).to.match(/,CANCELLED,\d{4}-\d{2}-\d{2}T[^,]+Z,/);
      for (const c of cfdis) {
        const name = names.find((n) => n.endsWith(`_${c.uuid as string}.xml`));
        expect(name, String(c.uuid)).to.be.a('string');
        const stored = await harness().deps.files.get(c.xml_file_key as string);
        expect((await readFile(join(dir, 'x', name!))).equals(stored!.data), `${name!} is the stamped XML`).to.equal(true);
      }
      expect(await xsdInvalid(names.map((n) => join(dir, 'x', n)))).to.equal('');
    } finally {
      await exportsEvents.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names each row that does not add up: an ACTIVE invoice whose sale is PENDING, a sale in two CFDIs, a global ticket count, a credit over its invoice', async () => {
    await db()('qr_transactions').where({ id: made.single.qrId }).update({ status: 'PENDING' });
    await db()('credit_allocations')
      .where({ credit_note_id: made.creditNote.id })
      .update({
        amount: dec(made.singleInvoice.total as string)
          .plus('0.01')
          .toFixed(6),
      });
    await db()('qr_transactions').where({ id: made.multi[1]!.qrId }).update({ global_invoice_id: made.globalInvoice.id });
    try {
      const res = await summary(key(a));
      expect(res.status).to.equal(200);
      const { differences, differences_total } = res.body.items[0];
      const byCode = (code: string) => differences.filter((d: { code: string }) => d.code === code);
      const saleOf = async (link: QrLink) => (await db()('qr_transactions').where({ id: link.qrId }).first('sale_id')).sale_id as string;
      expect(byCode('invoice_sale_not_invoiced')).to.deep.equal([
        {
          code: 'invoice_sale_not_invoiced',
          message: `Invoice ${made.singleInvoice.uuid as string} is valid but its sale ${await saleOf(made.single)} is not INVOICED.`,
          qr_id: made.single.qrId,
          sale_id: await saleOf(made.single),
          invoice_id: made.singleInvoice.id,
          uuid: made.singleInvoice.uuid,
        },
      ]);
      // A sale of an invoice moved into the global invoice: in both, and the global invoice's 2 tickets are now 3 sales.
      expect(byCode('global_ticket_count')).to.deep.equal([
        {
          code: 'global_ticket_count',
          message: `Global invoice ${made.globalInvoice.uuid as string} says 2 tickets but 3 sales point at it.`,
          invoice_id: made.globalInvoice.id,
          uuid: made.globalInvoice.uuid,
        },
      ]);
      expect(byCode('sale_invoiced_and_reported').map((d: { qr_id: string }) => d.qr_id)).to.deep.equal([made.multi[1]!.qrId]);
      expect(byCode('credit_exceeds_invoice')).to.deep.equal([
        {
          code: 'credit_exceeds_invoice',
          message: `Invoice ${made.singleInvoice.uuid as string} totals ${decimalText(made.singleInvoice.total as string)} but its credit notes credit ${decimalText(dec(made.singleInvoice.total as string).plus('0.01'))}.`,
          invoice_id: made.singleInvoice.id,
          uuid: made.singleInvoice.uuid,
        },
      ]);
      expect(byCode('sale_not_reported')).to.have.length(1);
      expect(differences_total).to.equal(differences.length);
    } finally {
      await db()('qr_transactions').where({ id: made.single.qrId }).update({ status: 'INVOICED' });
      await db()('qr_transactions').where({ id: made.multi[1]!.qrId }).update({ global_invoice_id: null });
      await db()('credit_allocations').where({ credit_note_id: made.creditNote.id }).update({ amount: made.credited });
    }
  });

  it("answers bad parameters with 400 error objects naming them, another account's merchant with 404", async () => {
    const fieldsOf = async (query: string) => {
      const res = await summary(key(a), query);
      expectError(res, 400, 'validation_failed');
      return (res.body.error.details as { field: string }[]).map((d) => d.field).sort();
    };
    expect(await fieldsOf('')).to.have.members(['from', 'to']);
    expect(await fieldsOf('from=2026-02-30&to=2026-03-01')).to.deep.equal(['from']);
    expect(await fieldsOf('from=2026-03-02&to=2026-03-01')).to.deep.equal(['to']);
    expect(await fieldsOf('from=2025-01-01&to=2026-03-01')).to.deep.equal(['to']);
    expect(await fieldsOf('from=2026-03-01&to=2026-03-31&time_zone=Mars/Olympus_Mons')).to.deep.equal(['time_zone']);
    expect((await summary(key(a), 'from=2026-03-01&to=2026-03-31&status=ACTIVE')).status).to.equal(400);
    expectError(await summary(key(a), `from=${monthStart}&to=${monthEnd}&merchant_id=${b.merchantId}`), 404, 'merchant_not_found');
    expectError(await summary(bearer(a), `from=${monthStart}&to=${monthEnd}&merchant_id=${b.merchantId}`), 404, 'merchant_not_found');
    expectError(await summary({}), 401, 'unauthorized');
    // b's own summary holds b's sale and invoice only.
    const mine = (await summary(key(b))).body.items;
    expect(mine.map((m: { merchant_id: string }) => m.merchant_id)).to.deep.equal([b.merchantId]);
    expect(mine[0].sales[0].recorded.count).to.equal(1);
  });
});
