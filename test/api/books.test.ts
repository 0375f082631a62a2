import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { jobId } from '../../shared/platform/jobs.js';
import { newId, newQrId } from '../../shared/platform/ids.js';
import { newQrToken } from '../../shared/qr/qr-link.js';
import { encodeCursor } from '../../shared/platform/keyset-cursor.js';
import { localDateTime } from '../../shared/domain/time-zone.js';
import { parseXml } from '../../shared/domain/cfdi/parse-xml.js';
import { attribute, child, descendants } from '../../shared/domain/cfdi/xml-element.js';
import { BUYER, confirmReviewed, newQrLink, queueEventsOf, stamped, type QrLink } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';
import { postQr, qrBody } from '../helpers/qr-body.js';

/** RFC 4180 as a spreadsheet reads it: quoted fields may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') ((field += '"'), i++);
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') (row.push(field), (field = ''));
    else if (c === '\r' && text[i + 1] === '\n') {
      (row.push(field), rows.push(row), (row = []), (field = ''), i++);
    } else field += c;
  }
  expect(field, 'the file ends with CRLF').to.equal('');
  return rows;
}

describe("the merchant's books: GET /v1/qrs, GET /v1/qrs/invoices and the export (issue #32)", function () {
  this.timeout(180_000);
  let a: BootstrapResult;
  let b: BootstrapResult;
  let events: Record<'stamp' | 'cancel', QueueEvents>;
  let closeEvents: () => Promise<void>;

  before(async () => {
    [a, b] = [await harness().bootstrap(), await harness().bootstrap()];
    ({ events, close: closeEvents } = await queueEventsOf('stamp', 'cancel'));
  });
  after(() => closeEvents());

  const db = () => harness().deps.db;
  const key = (account: BootstrapResult) => ({ 'X-API-Key': account.apiKey });
  const bearer = (account: BootstrapResult) => ({ Authorization: `Bearer ${account.accessToken}` });
  const get = (path: string, headers: Record<string, string>) => call('GET', path, { headers });
  const qrIds = (res: { body: { content: { qr_id: string }[] } }) => res.body.content.map((q) => q.qr_id);
  const newQr = async (account: BootstrapResult, saleId = `sale-${randomUUID()}`) => {
    const res = await postQr(account, qrBody(account.storeUid, { sale_id: saleId }));
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.qr_id as string;
  };
  const today = () => localDateTime(new Date(), 'America/Mexico_City').slice(0, 10);

  it("lists an API key's QRs newest first with each filter, never another merchant's", async () => {
    const [first, second, third] = [await newQr(a, 'F-1'), await newQr(a, 'F-2'), await newQr(a, 'F-3')];
    const foreign = await newQr(b, 'F-1');
    const all = await get('/v1/qrs?size=3', key(a));
    expect(all.status, JSON.stringify(all.body)).to.equal(200);
    expect(qrIds(all)).to.deep.equal([third, second, first]);
    expect(all.body.content[0]).to.include({
      merchant_id: a.merchantId,
      store_uid: a.storeUid,
      sale_id: 'F-3',
      status: 'PENDING',
      amount: '302.32',
      currency: 'MXN',
      invoice: null,
    });
    expect(all.body).to.include({ size: 3, next_cursor: null });
    expect((await get('/v1/qrs?size=2', key(a))).body.next_cursor).to.be.a('string');

    expect(qrIds(await get('/v1/qrs?sale_id=F-2', key(a)))).to.deep.equal([second]);
    expect(qrIds(await get('/v1/qrs?sale_id=F-1', key(b)))).to.deep.equal([foreign]);
    expect(qrIds(await get(`/v1/qrs?store_uid=${a.storeUid}&size=3`, key(a)))).to.deep.equal([third, second, first]);
    expect(qrIds(await get('/v1/qrs?store_uid=no-such-store', key(a)))).to.deep.equal([]);
    expect(qrIds(await get('/v1/qrs?status=EXPIRED,CANCELLED', key(a)))).to.deep.equal([]);
    expect(qrIds(await get('/v1/qrs?status=PENDING&size=3', key(a)))).to.deep.equal([third, second, first]);
    expect(qrIds(await get(`/v1/qrs?created_from=${today()}&created_to=${today()}&size=3`, key(a)))).to.deep.equal([third, second, first]);
    expect(qrIds(await get('/v1/qrs?created_to=2020-01-31', key(a)))).to.deep.equal([]);
    // A day is the merchant's: 23:30 in Mexico City on 2026-01-31 is 2026-02-01 in UTC.
    await db()('qr_transactions')
      .where({ id: first })
      .update({ created_at: new Date('2026-02-01T05:30:00Z') });
    expect(qrIds(await get('/v1/qrs?created_from=2026-01-31&created_to=2026-01-31', key(a)))).to.deep.equal([first]);
    expect(qrIds(await get('/v1/qrs?created_from=2026-02-01&created_to=2026-02-01', key(a)))).to.deep.equal([]);
    expect(qrIds(await get('/v1/qrs?created_from=2026-02-01&created_to=2026-02-01&time_zone=UTC', key(a)))).to.deep.equal([first]);

    expect(qrIds(await get('/v1/qrs', key(b)))).to.deep.equal([foreign]);
    expectError(await get(`/v1/qrs?merchant_id=${b.merchantId}`, key(a)), 404, 'merchant_not_found');
    expectError(await get(`/v1/qrs?merchant_id=${b.merchantId}`, bearer(a)), 404, 'merchant_not_found');
    expectError(await get('/v1/qrs', {}), 401, 'unauthorized');
  });

  it('finds a store by either of its ids: a sale made under the merchant id is in the list of its external id', async () => {
    const created = await postQr(b, qrBody(b.merchantId, { sale_id: 'BY-MERCHANT-ID' }));
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const byExternal = qrIds(await get(`/v1/qrs?store_uid=${b.storeUid}&sale_id=BY-MERCHANT-ID`, key(b)));
    expect(byExternal).to.deep.equal([created.body.qr_id]);
    expect(qrIds(await get(`/v1/qrs?store_uid=${b.merchantId}&sale_id=BY-MERCHANT-ID`, key(b)))).to.deep.equal([created.body.qr_id]);
    expect(qrIds(await get(`/v1/qrs?store_uid=${a.merchantId}`, key(b)))).to.deep.equal([]);
  });

  it("a bearer token lists all its account's merchants, or the one named, and only them", async () => {
    const mine = await newQr(a);
    // A second merchant of the same account, with one sale (copied rows: the list reads them as any other).
    const merchant = await db()('merchants').where({ id: a.merchantId }).first();
    const otherId = newId('merchant');
    await db()('merchants').insert({ ...merchant, id: otherId, external_merchant_id: `ext-${randomUUID().slice(0, 8)}` });
    const sale = await db()('qr_transactions').where({ id: mine }).first();
    // A sale's id and token carry its created_at (its month's partition checks it).
    const at = new Date();
    const otherQr = newQrId(at);
    await db()('qr_transactions').insert({ ...sale, id: otherQr, merchant_id: otherId, token: newQrToken(at), short_code: null, created_at: at });

    const all = qrIds(await get('/v1/qrs?size=100', bearer(a)));
    expect(all.slice(0, 2)).to.deep.equal([otherQr, mine]);
    const foreign = qrIds(await get('/v1/qrs?size=100', key(b)));
    expect(all.filter((id) => foreign.includes(id))).to.deep.equal([]);
    expect(qrIds(await get(`/v1/qrs?merchant_id=${otherId}`, bearer(a)))).to.deep.equal([otherQr]);
    expect(qrIds(await get('/v1/qrs?size=100', key(a)))).to.not.include(otherQr);
    expect(qrIds(await get('/v1/qrs?size=100', bearer(b))))
      .to.not.include(otherQr)
      .and.not.include(mine);
  });

  it('pages by cursor while sales are added between the fetches: no row skipped or repeated, even at one timestamp', async () => {
    const c = await harness().bootstrap();
    const seeded: string[] = [];
    for (let i = 0; i < 7; i++) seeded.push(await newQr(c));
    // Four of them share one instant: the id breaks the tie. (An instant of the table's range from before its
    // months: a month's partition holds only rows whose ids carry their own created_at.)
    await db()('qr_transactions')
      .whereIn('id', seeded.slice(2, 6))
      .update({ created_at: db().raw(`qr_legacy_before() - interval '1 hour'`) });
    const expected = qrIds(await get('/v1/qrs?size=100', key(c)));
    expect([...expected].sort()).to.deep.equal([...seeded].sort());

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await get(`/v1/qrs?size=3${cursor ? `&cursor=${cursor}` : ''}`, key(c));
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      seen.push(...qrIds(res));
      cursor = res.body.next_cursor as string | null;
      pages++;
      await newQr(c); // added while the client walks: newer than its first page, so in none of its pages
    } while (cursor);
    expect(seen).to.deep.equal(expected);
    expect(pages).to.equal(3);
    expect(qrIds(await get('/v1/qrs?size=100', key(c)))).to.have.length(7 + 3);
  });

  it('answers a malformed filter, page size or cursor with a 400 error object naming it', async () => {
    const fieldOf = async (query: string) => {
      const res = await get(`/v1/qrs?${query}`, key(a));
      expectError(res, 400, 'validation_failed');
      return res.body.error.details.map((d: { field: string }) => d.field) as string[];
    };
    expect(await fieldOf('size=0')).to.deep.equal(['size']);
    expect(await fieldOf('size=101')).to.deep.equal(['size']);
    expect(await fieldOf('size=ten')).to.deep.equal(['size']);
    expect(await fieldOf('cursor=not-a-cursor')).to.deep.equal(['cursor']);
    expect(await fieldOf(`cursor=${Buffer.from(JSON.stringify({ v: 1, at: 'yesterday', id: 'tra_x' })).toString('base64url')}`)).to.deep.equal(['cursor']);
    expect(await fieldOf(`cursor=${Buffer.from(JSON.stringify({ v: 1, at: '2026-11-27T06:00:00.000000Z', id: "x' OR 1=1" })).toString('base64url')}`)).to.deep.equal(['cursor']);
    expect(await fieldOf('created_to=9999-12-31')).to.deep.equal(['created_to']);
    expect(await fieldOf('created_from=0001-01-01')).to.deep.equal(['created_from']);
    expect(await fieldOf('status=LOST')).to.deep.equal(['status']);
    expect(await fieldOf('status=PENDING&status=SCANNED')).to.deep.equal(['status']);
    expect(await fieldOf('created_from=2026-02-30')).to.deep.equal(['created_from']);
    expect(await fieldOf('created_from=2026-11-02&created_to=2026-11-01')).to.deep.equal(['created_to']);
    expect(await fieldOf('time_zone=Mars/Olympus_Mons')).to.deep.equal(['time_zone']);
    expect(await fieldOf('receptor_rfc=URE180429TM6')).to.deep.equal(['receptor_rfc']);
    const invoices = await get('/v1/qrs/invoices?cfdi_type=X&uuid=nope&folio=-1', key(a));
    expectError(invoices, 400, 'validation_failed');
    expect(invoices.body.error.details.map((d: { field: string }) => d.field).sort()).to.deep.equal(['cfdi_type', 'folio', 'uuid']);
    expectError(await get('/v1/qrs/invoices/export', key(a)), 400, 'validation_failed');
    expectError(await get('/v1/qrs/invoices/export?format=xlsx', key(a)), 400, 'validation_failed');
    expectError(await get('/v1/qrs/invoices/', key(a)), 404, 'route_not_found');
  });

  it('takes only a cursor an earlier page of the same list gave: a made-up row, a moved time, an extra field or a signed impossible date are 400, never a 500 (issue #39)', async () => {
    const c = await harness().bootstrap('cursor forger');
    for (let i = 0; i < 3; i++) expect((await postQr(c, qrBody(c.storeUid))).status).to.equal(201);
    const first = await get('/v1/qrs?size=1', key(c));
    const cursor = first.body.next_cursor as string;
    expect((await get(`/v1/qrs?size=1&cursor=${cursor}`, key(c))).status).to.equal(200);
    const [payload, mac] = cursor.split('.') as [string, string];
    const row = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { at: string; id: string };
    const forged = (value: unknown, sig = mac) => `${Buffer.from(JSON.stringify(value)).toString('base64url')}.${sig}`;
    const refused = [
      forged({ ...row, id: 'tra_madeUpRow' }),
      forged({ ...row, at: '2099-01-01T00:00:00.000000Z' }),
      forged({ ...row, extra: 1 }),
      forged({ at: '2026-02-30T00:00:00.000000Z', id: row.id }),
      payload,
      `${payload}.${'A'.repeat(22)}`,
    ];
    for (const bad of refused) {
      const res = await get(`/v1/qrs?size=1&cursor=${bad}`, key(c));
      expectError(res, 400, 'validation_failed');
      expect(
        res.body.error.details.map((d: { field: string }) => d.field),
        bad,
      ).to.deep.equal(['cursor']);
    }
    // A signed cursor naming an impossible date (as a leaked signing key could make) is still a 400, not a query.
    const signedFeb30 = encodeCursor({ at: '2026-02-30T00:00:00.000000Z', id: row.id }, { list: 'qrs', key: harness().deps.config.urlSigningKey });
    expectError(await get(`/v1/qrs?size=1&cursor=${signedFeb30}`, key(c)), 400, 'validation_failed');
    // A QR list's cursor does not page the CFDI list.
    expectError(await get(`/v1/qrs/invoices?cursor=${cursor}`, key(c)), 400, 'validation_failed');
    // The summary and the status page's month take no year they cannot end.
    expectError(await get('/v1/qrs/invoices/summary?from=9999-12-01&to=9999-12-31', key(c)), 400, 'validation_failed');
  });

  describe('CFDIs: the list and the export of a mixed set', () => {
    const invoiceOf = (qrId: string) => db()('invoices').where({ transaction_id: qrId }).whereNot({ status: 'REFUSED' }).first();
    let single: { id: string; uuid: string; series: string; folio: string };
    let multi: { id: string; uuid: string };
    let note: { id: string; uuid: string };
    let cancelled: { id: string; uuid: string };
    let tickets: string[];
    const TRICKY_SALE = '=HYPERLINK("http://x"),1';

    async function confirmed(link: QrLink, extra: { additional_tickets?: string[] } = {}) {
      const res = await confirmReviewed(link, BUYER, extra);
      expect(res.status, JSON.stringify(res.body)).to.equal(202);
      await stamped(events.stamp, link.qrId);
      return invoiceOf(link.qrId);
    }

    before(async () => {
      single = await confirmed(await newQrLink(a, { sale_id: TRICKY_SALE }));
      const [first, second, third] = [await newQrLink(a), await newQrLink(a), await newQrLink(a)];
      const code = async (qrId: string) => (await get(`/v1/qrs/${qrId}`, key(a))).body.short_code as string;
      multi = await confirmed(first, { additional_tickets: [await code(second.qrId), await code(third.qrId)] });
      tickets = [first.qrId, second.qrId, third.qrId];
      const credit = await call('POST', '/v1/qrs/invoices/credit-notes', {
        headers: key(a),
        body: { related: [{ uuid: single.uuid, amount: 116 }], sat_payment_form: '03', sat_payment_method: 'PUE' },
      });
      expect(credit.status, JSON.stringify(credit.body)).to.equal(202);
      const job = await harness()
        .producers.queue('stamp')
        .getJob(jobId.stampInvoice(credit.body.id as string));
      await job!.waitUntilFinished(events.stamp, 60_000);
      note = await db()('invoices').where({ id: credit.body.id }).first();
      cancelled = await confirmed(await newQrLink(a));
      expect((await call('DELETE', `/v1/qrs/invoices/${cancelled.uuid}`, { headers: key(a), body: { motive: '02' } })).status).to.equal(202);
      const request = await db()('invoice_cancellations').where({ invoice_id: cancelled.id }).first('id');
      await (await harness()
        .producers.queue('cancel')
        .getJob(jobId.cancelInvoice(request.id as string)))!.waitUntilFinished(events.cancel, 60_000);
      expect((await db()('invoices').where({ id: cancelled.id }).first('status')).status).to.equal('CANCELLED');
    });

    const uuids = (res: { body: { content: { uuid: string }[] } }) => res.body.content.map((i) => i.uuid);
    const list = (query: string, headers: Record<string, string> = key(a)) => get(`/v1/qrs/invoices?${query}`, headers);

    it('lists every CFDI newest first with its kind, and each filter finds its own', async () => {
      const res = await list('size=4');
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(uuids(res)).to.deep.equal([cancelled.uuid, note.uuid, multi.uuid, single.uuid]);
      const [c, n, m, s] = res.body.content;
      expect(c).to.include({ kind: 'invoice', cfdi_type: 'I', status: 'CANCELLED' });
      expect(n).to.include({ kind: 'credit_note', cfdi_type: 'E', status: 'ACTIVE' });
      expect(m).to.include({ kind: 'invoice', status: 'ACTIVE', global_tickets: null });
      expect(m.sales.map((x: { qr_id: string }) => x.qr_id)).to.deep.equal(tickets);
      expect(s).to.deep.include({ receptor: { rfc: BUYER.rfc, name: BUYER.name }, sales: [{ qr_id: s.sales[0].qr_id, store_uid: a.storeUid, sale_id: TRICKY_SALE }] });
      expect(s.total).to.match(/^\d+\.\d{2,6}$/);

      expect(uuids(await list('cfdi_type=E'))).to.deep.equal([note.uuid]);
      expect(uuids(await list('status=CANCELLED'))).to.deep.equal([cancelled.uuid]);
      expect(uuids(await list(`uuid=${multi.uuid.toLowerCase()}`))).to.deep.equal([multi.uuid]);
      expect(uuids(await list(`sale_id=${encodeURIComponent(TRICKY_SALE)}`))).to.deep.equal([single.uuid]);
      const secondSale = (await db()('qr_transactions').where({ id: tickets[1] }).first('sale_id')).sale_id as string;
      expect(uuids(await list(`sale_id=${secondSale}`))).to.deep.equal([multi.uuid]);
      expect(uuids(await list(`series=${single.series}&folio=${single.folio}`))).to.deep.equal([single.uuid]);
      expect(uuids(await list(`receptor_rfc=${BUYER.rfc.toLowerCase()}&size=4`))).to.have.length(4);
      expect(uuids(await list('receptor_rfc=XAXX010101000'))).to.deep.equal([]);
      expect(uuids(await list(`store_uid=${a.storeUid}&status=ACTIVE,CANCELLED&cfdi_type=I&size=2`))).to.deep.equal([cancelled.uuid, multi.uuid]);
      expect(uuids(await list(`created_from=${today()}&size=4`))).to.have.length(4);
      expect(uuids(await list('created_to=2020-01-01'))).to.deep.equal([]);
      expect(uuids(await list(`size=4&merchant_id=${a.merchantId}`, bearer(a)))).to.deep.equal(uuids(res));

      const foreign = await list('size=100', key(b));
      expect(uuids(foreign)).to.not.include.members([single.uuid]);
      expect(uuids(await list(`uuid=${single.uuid}`, bearer(b)))).to.deep.equal([]);
    });

    async function exported(format: 'csv' | 'jsonl', account = a): Promise<{ type: string; text: string }> {
      const res = await fetch(`${harness().baseUrl}/v1/qrs/invoices/export?format=${format}&created_from=${today()}`, { headers: key(account) });
      expect(res.status).to.equal(200);
      return { type: res.headers.get('content-type') ?? '', text: await res.text() };
    }

    /** What the stamped XML itself says, to compare an export row with. */
    async function stampedFacts(invoiceId: string) {
      const row = await db()('invoices').where({ id: invoiceId }).first('xml_file_key');
      const c = parseXml((await harness().deps.files.get(row.xml_file_key as string))!.data.toString('utf8'));
      const iva = descendants(c, ['cfdi:Impuestos', 'cfdi:Traslados', 'cfdi:Traslado']).find((t) => attribute(t, 'Impuesto') === '002');
      return {
        // Fecha's digits with the offset of the sale's clock (America/Mexico_City: -06:00, issue #39).
        issued_at: `${attribute(c, 'Fecha')}-06:00`,
        subtotal: attribute(c, 'SubTotal'),
        total: attribute(c, 'Total'),
        iva_transferred: iva ? attribute(iva, 'Importe') : undefined,
        payment_form: attribute(c, 'FormaPago'),
        payment_method: attribute(c, 'MetodoPago'),
        cfdi_use: attribute(child(c, 'cfdi:Receptor')!, 'UsoCFDI'),
        currency: attribute(c, 'Moneda'),
      };
    }

    it('exports the period as CSV, one row per stamped CFDI, each field as the CFDI says, escaped for spreadsheets', async () => {
      const { type, text } = await exported('csv');
      expect(type).to.equal('text/csv; charset=utf-8');
      // The UTF-8 byte order mark first (fetch's text() drops it), so Excel on Windows reads the accents (issue #39).
      const raw = await fetch(`${harness().baseUrl}/v1/qrs/invoices/export?format=csv&created_from=${today()}`, { headers: key(a) });
      expect([...new Uint8Array(await raw.arrayBuffer()).slice(0, 12)]).to.deep.equal([0xef, 0xbb, 0xbf, ...Buffer.from('issued_at')]);
      const [header, ...rows] = parseCsv(text);
      const records = rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]])) as Record<string, string>);
      expect(records.map((r) => r.uuid)).to.deep.equal([cancelled.uuid, note.uuid, multi.uuid, single.uuid]);
      const [c, n, m, s] = records as [Record<string, string>, Record<string, string>, Record<string, string>, Record<string, string>];
      for (const [record, id] of [
        [c, cancelled.id],
        [n, note.id],
        [m, multi.id],
        [s, single.id],
      ] as const) {
        const facts = await stampedFacts(id);
        expect(record).to.include({ ...facts, receptor_rfc: BUYER.rfc, receptor_name: BUYER.name, merchant_id: a.merchantId, ieps_transferred: '', isr_withheld: '' });
      }
      expect(s).to.include({
        cfdi_type: 'I',
        kind: 'invoice',
        status: 'ACTIVE',
        cfdi_use: 'G03',
        serie_folio: `${single.series}${single.folio}`,
        related_uuids: '',
        cancelled_at: '',
      });
      // The sale id was written to start a formula and holds a comma and quotes: one field, inert.
      expect(s.sale_ids).to.equal(`'${TRICKY_SALE}`);
      expect(text).to.contain(`"'=HYPERLINK(""http://x""),1"`);
      expect(n).to.include({ cfdi_type: 'E', kind: 'credit_note', related_uuids: `01:${single.uuid}`, sale_ids: '' });
      const saleIds = (await db()('qr_transactions').whereIn('id', tickets).select('id', 'sale_id')) as { id: string; sale_id: string }[];
      expect(m.sale_ids).to.equal(tickets.map((t) => saleIds.find((x) => x.id === t)!.sale_id).join(' '));
      expect(c.status).to.equal('CANCELLED');
      expect(Date.parse(c.cancelled_at!)).to.be.closeTo(Date.now(), 300_000);
      expect((await exported('csv', b)).text.split('\r\n').filter(Boolean)).to.have.length(
        1 + (await db()('invoices').where({ merchant_id: b.merchantId }).whereNotNull('uuid')).length,
      );
    });

    it('exports the same rows as JSON lines with money as decimal text', async () => {
      const { type, text } = await exported('jsonl');
      expect(type).to.equal('application/jsonl; charset=utf-8');
      const lines = text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.map((l) => l.uuid)).to.deep.equal([cancelled.uuid, note.uuid, multi.uuid, single.uuid]);
      const [, n, m, s] = lines as Record<string, unknown>[];
      expect(n).to.deep.include({ related_uuids: [{ type: '01', uuid: single.uuid }], sale_ids: [], discount: null });
      expect(m!.sale_ids).to.have.length(3);
      expect(s).to.deep.include({ sale_ids: [TRICKY_SALE], ...(await stampedFacts(single.id)) });
      for (const l of lines)
        for (const k of ['subtotal', 'total', 'iva_transferred'])
          expect(l[k])
            .to.be.a('string')
            .that.matches(/^\d+\.\d+$/);
    });
  });
});
