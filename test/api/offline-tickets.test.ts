import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import { randomUUID } from 'node:crypto';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { AutofacturaClient } from '../../clients/typescript/src/client.js';
import { offlineTicket } from '../../clients/typescript/src/offline-ticket.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUYER, confirmReviewed, queueEvents, stamped, type QrLink } from '../helpers/buyer.js';
import { xsdInvalid } from '../helpers/sat-tools.js';
import { jobId } from '../../shared/platform/jobs.js';
import { settleOfflineClaimsJob } from '../../workers/settle-offline-claims.js';
import { globalPeriod } from '../../shared/global-invoice/global-period.js';
import { offlineAmountText, offlineTicketLink, signOfflineTicket } from '../../shared/offline/offline-ticket.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';
import { postQr, qrBody } from '../helpers/qr-body.js';

/** The first message to `address`, waiting for each arrival in turn. */
async function mailTo(address: string) {
  for (let n = 1; ; n++) {
    const hit = (await harness().smtp.waitForMessages(n, 30_000)).find((m) => m.to.includes(address));
    if (hit) return hit;
  }
}

type Created = { keyId: string; offlineKey: string; linkBaseUrl: string; windowHours: number; currency: string };

describe('offline tickets: a sale the point of sale made while offline (issue #33)', function () {
  this.timeout(60_000);
  let account: BootstrapResult;
  let other: BootstrapResult;
  let events: QueueEvents;
  const bearer = (a: BootstrapResult) => ({ Authorization: `Bearer ${a.accessToken}` });
  const keysPath = (a: BootstrapResult) => `/v1/qrs/merchants/${a.merchantId}/offline-keys`;
  const issueKey = async (a: BootstrapResult, body: Record<string, unknown> = {}) => {
    const res = await call('POST', keysPath(a), { headers: bearer(a), body });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body as Created;
  };
  /** The sale the POS made offline: the ticket it printed and the body it posts when it is back. */
  const offlineSale = (a: BootstrapResult, key: Created, soldAt = new Date()) => {
    const body = qrBody(a.storeUid);
    const ticket = offlineTicket(key.offlineKey, key.linkBaseUrl, { saleId: body.sale_id, amount: body.amount, soldAt });
    return { body: { ...body, offline_ticket: ticket.link }, ticket };
  };
  const scan = (link: string) => fetch(`${harness().baseUrl}${new URL(link).pathname}${new URL(link).search}`, { redirect: 'manual' });
  const sales = (saleId: string) => harness().deps.db('qr_transactions').where({ sale_id: saleId });

  before(async () => {
    account = await harness().bootstrap();
    other = await harness().bootstrap('another account');
    events = await queueEvents('stamp');
  });
  after(() => events.close());

  it('issues a store key once (no-store), keeps its secret encrypted and lists it without the secret', async () => {
    const res = await call('POST', keysPath(account), { headers: bearer(account), body: { windowHours: 48 } });
    expect(res.status).to.equal(201);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(res.body).to.include({
      merchantId: account.merchantId,
      status: 'ACTIVE',
      windowHours: 48,
      currency: 'MXN',
      revokedAt: null,
      linkBaseUrl: harness().deps.config.publicBaseUrl,
    });
    expect(res.body.offlineKey).to.match(/^afok_[A-Za-z0-9_-]{10}\.[A-Za-z0-9_-]{43}$/);
    const secret = Buffer.from((res.body.offlineKey as string).split('.')[1]!, 'base64url');
    const row = await harness().deps.db('offline_keys').where({ id: res.body.keyId }).first();
    expect((row.secret_encrypted as Buffer).includes(secret)).to.equal(false);
    const list = await call('GET', keysPath(account), { headers: bearer(account) });
    expect(list.status).to.equal(200);
    expect(JSON.stringify(list.body)).to.not.include(res.body.offlineKey.split('.')[1]);
    expect(list.body.content.map((k: { keyId: string }) => k.keyId)).to.include(res.body.keyId);
    expectError(await call('POST', keysPath(account), { headers: bearer(account), body: { windowHours: 0 } }), 400, 'validation_failed');
    for (const currency of ['usd', 'ZZZ', 'XXX']) {
      const refused = await call('POST', keysPath(account), { headers: bearer(account), body: { currency } });
      expectError(refused, 400, 'validation_failed');
      expect(refused.body.error.details[0].field).to.equal('currency');
    }
    expectError(await call('POST', keysPath(account), { headers: bearer(other), body: {} }), 404, 'merchant_not_found');
    expectError(await call('GET', keysPath(account), { headers: bearer(other) }), 404, 'merchant_not_found');
  });

  it('the whole path: ticket made offline, buyer scans before the sale arrives, POS catches up, buyer invoices', async () => {
    const key = await issueKey(account);
    const { body, ticket } = offlineSale(account, key);

    const early = await scan(ticket.link);
    expect(early.status).to.equal(404);
    expect(await early.text()).to.include('La tienda aún no envía esta compra');
    expect(await sales(body.sale_id)).to.have.length(0);

    const caught = await postQr(account, body);
    expect(caught.status, JSON.stringify(caught.body)).to.equal(201);
    expect(caught.body.short_code).to.equal(ticket.shortCode);
    const row = await sales(body.sale_id).first();
    expect(row).to.include({ offline_key_id: key.keyId, short_code: ticket.shortCode.replaceAll('-', '') });
    expect((row.sold_at as Date).getTime()).to.equal(ticket.soldAt.getTime());

    const later = await scan(ticket.link);
    expect(later.status).to.equal(303);
    const target = new URL(caught.body.qr_content as string);
    expect(later.headers.get('location')).to.equal(`${target.pathname}${target.search}`);
    const typed = await call('GET', `/v1/public/qrs/code/${encodeURIComponent(ticket.shortCode.toLowerCase())}`);
    expect(typed.body).to.deep.equal({ qr_content: caught.body.qr_content });

    const link: QrLink = { v: target.searchParams.get('v')!, t: target.searchParams.get('t')!, m: target.searchParams.get('m')!, qrId: caught.body.qr_id };
    expect((await confirmReviewed(link)).status).to.equal(202);
    expect(await stamped(events, link.qrId)).to.include({ outcome: 'stamped' });
  });

  it('the typed client signs offline in one call and catches the sale up with createQr', async () => {
    const key = await issueKey(account);
    // An unreachable service: the ticket needs no network.
    const offline = new AutofacturaClient({ baseUrl: 'http://127.0.0.1:9', apiKey: account.apiKey, offline: { key: key.offlineKey, linkBaseUrl: key.linkBaseUrl }, attempts: 1 });
    const sale = qrBody(account.storeUid);
    const ticket = offline.offlineTicket(sale);
    const online = new AutofacturaClient({ baseUrl: harness().baseUrl, apiKey: account.apiKey });
    const qr = await online.createQr({ ...sale, offline_ticket: ticket.link });
    expect(qr.short_code).to.equal(ticket.shortCode);
  });

  it('binds a ticket once: a retry with the same idempotency key replays, another sale with it is refused (409)', async () => {
    const key = await issueKey(account);
    const { body } = offlineSale(account, key);
    const idem = randomUUID();
    expect((await postQr(account, body, idem)).status).to.equal(201);
    const replay = await postQr(account, body, idem);
    expect(replay.status).to.equal(201);
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expectError(await postQr(account, body), 409, 'offline_ticket_already_bound');
    expect(await sales(body.sale_id)).to.have.length(1);
  });

  it('refuses a forged, altered or foreign ticket, another total or sale id, and writes nothing', async () => {
    const key = await issueKey(account);
    const foreignKey = await issueKey(other);
    const { body, ticket } = offlineSale(account, key);
    const altered = ticket.link.replace(/&a=[^&]+/, '&a=1');
    expectError(await postQr(account, { ...body, offline_ticket: altered }), 422, 'offline_ticket_invalid');
    const foreign = offlineTicket(foreignKey.offlineKey, foreignKey.linkBaseUrl, { saleId: body.sale_id, amount: body.amount });
    expectError(await postQr(account, { ...body, offline_ticket: foreign.link }), 422, 'offline_ticket_invalid');
    const forged = ticket.link.replace(/&m=[^&]+/, `&m=${'A'.repeat(22)}`);
    expectError(await postQr(account, { ...body, offline_ticket: forged }), 422, 'offline_ticket_invalid');
    const mismatch = await postQr(account, { ...body, amount: body.amount + 1, subtotal: body.subtotal });
    expect(mismatch.status).to.be.oneOf([400, 422]);
    const otherSale = await postQr(account, { ...body, sale_id: `${body.sale_id}-b` });
    expectError(otherSale, 422, 'offline_ticket_mismatch');
    expect(otherSale.body.error.details[0]).to.include({ field: 'sale_id', code: 'differs_from_ticket' });
    expectError(await postQr(account, { ...body, offline_ticket: 'https://x.test/q?v=2&k=abc' }), 400, 'validation_failed');
    expect(await sales(body.sale_id)).to.have.length(0);
    expect(await sales(`${body.sale_id}-b`)).to.have.length(0);

    const bad = await scan(forged);
    expect(bad.status).to.equal(400);
    expect(await bad.text()).to.include('Este enlace no es válido');
  });

  it('refuses a total that differs from the ticket (the buyer was printed another)', async () => {
    const key = await issueKey(account);
    const base = qrBody(account.storeUid);
    const ticket = offlineTicket(key.offlineKey, key.linkBaseUrl, { saleId: base.sale_id, amount: '99.99' });
    const res = await postQr(account, { ...base, offline_ticket: ticket.link });
    expectError(res, 422, 'offline_ticket_mismatch');
    expect(res.body.error.details[0]).to.include({ field: 'amount', code: 'differs_from_ticket' });
  });

  it("takes a ticket's currency from its key: the waiting page shows it, a sale in another is refused (issue #39)", async () => {
    const dollars = await issueKey(account, { currency: 'USD' });
    expect(dollars.currency).to.equal('USD');
    const base = qrBody(account.storeUid);
    const ticket = offlineTicket(dollars.offlineKey, dollars.linkBaseUrl, { saleId: base.sale_id, amount: base.amount });
    const waiting = await scan(ticket.link);
    expect(waiting.status).to.equal(404);
    expect(await waiting.text()).to.include(`$302.32 USD`);
    const res = await postQr(account, { ...base, offline_ticket: ticket.link });
    expectError(res, 422, 'offline_ticket_mismatch');
    expect(res.body.error.details[0]).to.include({ field: 'currency', code: 'differs_from_ticket' });
    expect(await sales(base.sale_id)).to.have.length(0);
  });

  it("refuses a ticket past its key's window; the buyer's page says it can no longer be invoiced here", async () => {
    const key = await issueKey(account, { windowHours: 1 });
    const { body, ticket } = offlineSale(account, key, new Date(Date.now() - 61 * 60_000));
    expectError(await postQr(account, body), 422, 'offline_ticket_window_passed');
    const page = await scan(ticket.link);
    expect(page.status).to.equal(410);
    const text = await page.text();
    expect(text).to.include('ya no puede facturarse aquí').and.include('dentro del plazo');
    // What the ticket says and whom to ask, as the waiting page shows them (issue #39).
    const merchant = await harness().deps.db('merchants').where({ id: account.merchantId }).first('name');
    expect(text).to.include(merchant.name).and.include(body.sale_id).and.include('Plazo de la tienda para enviarla');
  });

  it("a revoked key's ticket says the store stopped using its key, with the ticket, never that a just-made sale came late (issue #39)", async () => {
    const key = await issueKey(account);
    const { body, ticket } = offlineSale(account, key, new Date(Date.now() - 2000));
    const revoked = await call('POST', `${keysPath(account)}/${key.keyId}/revoke`, { headers: bearer(account), body: { graceHours: 0 } });
    expect(revoked.status).to.equal(200);
    const page = await scan(ticket.link);
    expect(page.status).to.equal(410);
    const text = await page.text();
    expect(text).to.include('dejó de usar la llave').and.not.include('dentro del plazo');
    const merchant = await harness().deps.db('merchants').where({ id: account.merchantId }).first('name');
    expect(text)
      .to.include(merchant.name)
      .and.include(body.sale_id)
      .and.include(`$${Number(body.amount).toFixed(2)}`);
  });

  it('a ticket sold in a period that closed before the sale arrived belongs to that period: sold_at shown, claimable until the current period closes, named in the summary (issue #39)', async () => {
    const late = await harness().bootstrap('offline sale arriving late');
    const daily = await call('PUT', `/v1/qrs/issuers/${late.issuerId}/global-periodicity`, { headers: bearer(late), body: { periodicity: '01' } });
    expect(daily.status, JSON.stringify(daily.body)).to.equal(200);
    const key = await issueKey(late, { windowHours: 720 });
    const soldAt = new Date(Math.floor((Date.now() - 3 * 86_400_000) / 1000) * 1000);
    const { body } = offlineSale(late, key, soldAt);
    const res = await postQr(late, body);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.sold_at).to.equal(soldAt.toISOString());
    // Its global period is the day it was sold; the buyer may still invoice it until today's period closes.
    expect(res.body.global_period).to.deep.equal({ periodicity: '01', closes_at: globalPeriod(soldAt, '01').end.toISOString() });
    expect(Date.parse(res.body.expires_at as string)).to.equal(globalPeriod(new Date(), '01').end.getTime());
    const got = await call('GET', `/v1/qrs/${res.body.qr_id as string}`, { headers: { 'X-API-Key': late.apiKey } });
    expect(got.body.sold_at).to.equal(soldAt.toISOString());
    const listed = await call('GET', `/v1/qrs?sale_id=${encodeURIComponent(body.sale_id)}`, { headers: { 'X-API-Key': late.apiKey } });
    expect(listed.body.content.map((q: { sold_at: string | null }) => q.sold_at)).to.deep.equal([soldAt.toISOString()]);
    // A sale posted when made shows none.
    const online = await postQr(late, qrBody(late.storeUid));
    expect(online.body.sold_at).to.equal(null);
    const today = new Date().toISOString().slice(0, 10);
    const summary = await call('GET', `/v1/qrs/invoices/summary?from=${today}&to=${today}&time_zone=UTC`, { headers: { 'X-API-Key': late.apiKey } });
    expect(summary.status, JSON.stringify(summary.body)).to.equal(200);
    const named = (summary.body.items[0].differences as { code: string; sale_id?: string; message: string }[]).filter((d) => d.code === 'offline_sale_other_period');
    expect(named.map((d) => d.sale_id)).to.deep.equal([body.sale_id]);
    expect(named[0]!.message).to.include(soldAt.toISOString().slice(0, 19));
  });

  it('a 12-symbol code typed before its sale arrives says the sale has not come yet, not "no such code" (issue #39)', async () => {
    const key = await issueKey(account);
    const { ticket } = offlineSale(account, key);
    const page = await fetch(`${harness().baseUrl}/q?code=${encodeURIComponent(ticket.shortCode)}`, { redirect: 'manual' });
    expect(page.status).to.equal(404);
    const text = await page.text();
    expect(text).to.include('Esa compra aún no nos llega').and.not.include('No encontramos ese código');
    expect(text).to.include('12 en un ticket impreso sin internet');
    expectError(await call('GET', `/v1/public/qrs/code/${ticket.shortCode.replaceAll('-', '')}`), 404, 'offline_code_not_arrived');
  });

  it('a rotation stops new tickets of the old key at once and old ones after the grace; revoking with 0 grace stops all', async () => {
    const key = await issueKey(account);
    const before = offlineSale(account, key, new Date(Date.now() - 60_000));
    const rotated = await call('POST', `${keysPath(account)}/${key.keyId}/rotate`, { headers: bearer(account), body: { graceHours: 2 } });
    expect(rotated.status).to.equal(201);
    expect(rotated.headers.get('cache-control')).to.equal('no-store');
    const fresh = rotated.body as Created;
    expect(fresh.keyId).to.not.equal(key.keyId);
    const list = (await call('GET', keysPath(account), { headers: bearer(account) })).body.content as {
      keyId: string;
      status: string;
      replacedBy: string | null;
      oldTicketsUntil: string | null;
    }[];
    const old = list.find((k) => k.keyId === key.keyId)!;
    expect(old).to.include({ status: 'REVOKED', replacedBy: fresh.keyId });
    expect(new Date(old.oldTicketsUntil!).getTime() - Date.now()).to.be.within(2 * 3_600_000 - 60_000, 2 * 3_600_000 + 60_000);

    const after = offlineSale(account, key, new Date(Date.now() + 1000));
    expectError(await postQr(account, after.body), 422, 'offline_key_revoked');
    expect((await postQr(account, before.body)).status, 'sold before the rotation, within the grace').to.equal(201);
    expect((await postQr(account, offlineSale(account, fresh).body)).status).to.equal(201);
    expectError(await call('POST', `${keysPath(account)}/${key.keyId}/rotate`, { headers: bearer(account), body: {} }), 409, 'offline_key_revoked');

    const stolen = offlineSale(account, fresh, new Date(Date.now() - 60_000));
    const revoked = await call('POST', `${keysPath(account)}/${fresh.keyId}/revoke`, { headers: bearer(account), body: { graceHours: 0 } });
    expect(revoked.status).to.equal(200);
    expect(revoked.body).to.include({ status: 'REVOKED' });
    expectError(await postQr(account, stolen.body), 422, 'offline_key_revoked');
    expectError(await call('POST', `${keysPath(account)}/nosuchkey0/revoke`, { headers: bearer(account), body: {} }), 404, 'offline_key_not_found');
  });

  describe('the buyer who scans before the sale arrives and leaves their data', () => {
    const claimOf = (link: string, customer: Partial<typeof BUYER> = {}, claimToken?: string) => {
      const p = new URL(link).searchParams;
      return call('POST', '/v1/public/qrs/offline-claim', {
        body: {
          v: p.get('v'),
          k: p.get('k'),
          w: p.get('w'),
          a: p.get('a'),
          s: p.get('s'),
          m: p.get('m'),
          customer: { ...BUYER, ...customer },
          ...(claimToken === undefined ? {} : { claim_token: claimToken }),
        },
      });
    };
    const claims = (saleId: string) => harness().deps.db('offline_claims').where({ sale_id: saleId });
    const settleDeps = () => ({ db: harness().deps.db, producers: harness().producers, catalogs: harness().deps.catalogs });

    it('is stamped and e-mailed the invoice when the POS catches up with the signed total: the whole path, the CFDI valid', async () => {
      const key = await issueKey(account);
      const { body, ticket } = offlineSale(account, key);
      const email = `offline-${randomUUID()}@example.test`;
      const left = await claimOf(ticket.link, { email, name: 'universidad  robotica española' });
      expect(left.status, JSON.stringify(left.body)).to.equal(202);
      expect(left.body).to.include({ status: 'WAITING', sale_id: body.sale_id, refusal: null });
      expect(left.body.email).to.not.include(email.split('@')[0]);
      expect((await claimOf(ticket.link, { email }, left.body.claim_token as string)).status, 'corrected while it waits').to.equal(202);
      expect(await claims(body.sale_id)).to.have.length(1);
      expect(
        await harness()
          .deps.db('invoices')
          .whereIn('transaction_id', harness().deps.db('qr_transactions').select('id').where({ sale_id: body.sale_id })),
      ).to.have.length(0);

      const caught = await postQr(account, body);
      expect(caught.status).to.equal(201);
      const settle = await harness()
        .producers.queue('stamp')
        .getJob(jobId.settleOfflineClaimsOf(caught.body.qr_id as string));
      expect(await settle!.waitUntilFinished(events, 30_000)).to.deep.equal({ confirmed: 1, refused: 0 });
      expect(await stamped(events, caught.body.qr_id as string)).to.include({ outcome: 'stamped' });
      const [claim] = await claims(body.sale_id);
      expect(claim).to.include({ status: 'CONFIRMED' });
      const invoice = await harness().deps.db('invoices').where({ id: claim.invoice_id }).first();
      expect(invoice).to.include({ transaction_id: caught.body.qr_id, status: 'ACTIVE' });
      expect(invoice.customer).to.include({ rfc: BUYER.rfc, email });

      const mail = await mailTo(email);
      const xml = mail?.attachment(`${invoice.uuid as string}.xml`);
      expect(xml, 'the invoice e-mailed with its XML').to.not.equal(undefined);
      const dir = mkdtempSync(join(tmpdir(), 'offline-cfdi-'));
      try {
        writeFileSync(join(dir, 'cfdi.xml'), xml!);
        expect(await xsdInvalid([join(dir, 'cfdi.xml')])).to.equal('');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      expect(xml!.toString('utf8')).to.include(`Total="${Number(body.amount).toFixed(2)}"`);
    });

    it('the first buyer holds the ticket: a second one is refused (409 offline_claim_taken), one after the other and at once (issue #39)', async () => {
      const key = await issueKey(account);
      const { body, ticket } = offlineSale(account, key);
      const first = await claimOf(ticket.link, { email: 'first@example.test' });
      expect(first.status, JSON.stringify(first.body)).to.equal(202);
      expect(first.body.claim_token).to.match(/^oct_[A-Za-z0-9_-]{32}$/);
      const second = await claimOf(ticket.link, { email: 'second@example.test', rfc: 'MCI7306249Y1', name: 'MUNICIPIO DE CUAUTITLAN IZCALLI' });
      expectError(second, 409, 'offline_claim_taken');
      const guessed = await claimOf(ticket.link, { email: 'third@example.test' }, `oct_${'A'.repeat(32)}`);
      expectError(guessed, 409, 'offline_claim_taken');
      const [kept] = await claims(body.sale_id);
      expect(kept.customer).to.include({ rfc: BUYER.rfc, email: 'first@example.test' });
      expect(kept.holder_hash.toString('hex'), 'only the hash of the token is stored').to.not.include(Buffer.from(first.body.claim_token as string).toString('hex'));
      // The holder corrects their data with the token.
      const corrected = await claimOf(ticket.link, { email: 'first-again@example.test' }, first.body.claim_token as string);
      expect(corrected.status).to.equal(202);
      expect((await claims(body.sale_id))[0].customer).to.include({ email: 'first-again@example.test' });

      // Eight buyers at once on a fresh ticket: exactly one holds it, the others are told at once.
      const race = offlineSale(account, key);
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => claimOf(race.ticket.link, { email: `racer-${i}@example.test` })));
      expect(answers.map((a) => a.status).sort()).to.deep.equal([202, 409, 409, 409, 409, 409, 409, 409]);
      expect(answers.filter((a) => a.status === 409).every((a) => a.body.error.code === 'offline_claim_taken')).to.equal(true);
      const winner = answers.findIndex((a) => a.status === 202);
      expect((await claims(race.body.sale_id))[0].customer).to.include({ email: `racer-${winner}@example.test` });
    });

    it('refuses bad tax data field by field (422) and a forged link (400), keeping nothing', async () => {
      const key = await issueKey(account);
      const { body, ticket } = offlineSale(account, key);
      const bad = await claimOf(ticket.link, { rfc: 'URE189929TM6' });
      expectError(bad, 422, 'customer_invalid');
      expect(bad.body.error.details.map((d: { field: string }) => d.field)).to.include('customer.rfc');
      const forged = await claimOf(ticket.link.replace(/&a=[^&]+/, '&a=1'));
      expectError(forged, 400, 'invalid_signature');
      expect(await claims(body.sale_id)).to.have.length(0);
    });

    it('refuses a ticket whose sale id (s) holds a control character or "|": the catch-up and the buyer\'s early claim are 400 invalid_for_cfdi, nothing kept (issue #38)', async () => {
      const key = await issueKey(account);
      const secret = Buffer.from(key.offlineKey.split('.')[1]!, 'base64url');
      for (const [name, saleId] of [
        ['U+001D (INFORMATION SEPARATOR THREE / GS)', `0107501\u001D10-${randomUUID()}`],
        ['"|"', `A|B-${randomUUID()}`],
      ] as const) {
        // Signed as a POS would sign it: the signature is good, the sale id is what no CFDI can hold.
        const body = qrBody(account.storeUid, { sale_id: saleId });
        const params = signOfflineTicket({ keyId: key.keyId, saleId, amount: offlineAmountText(String(body.amount))!, soldAt: new Date() }, secret);
        const link = offlineTicketLink(key.linkBaseUrl, params);
        const caught = await postQr(account, { ...body, offline_ticket: link });
        expectError(caught, 400, 'validation_failed');
        expect(
          caught.body.error.details.map((d: { field: string; code: string }) => `${d.field}:${d.code}`),
          name,
        ).to.deep.equal(['sale_id:invalid_for_cfdi']);
        const other = await postQr(account, { ...body, sale_id: `ok-${randomUUID()}`, offline_ticket: link });
        expectError(other, 400, 'validation_failed');
        expect(
          other.body.error.details.map((d: { field: string; code: string }) => `${d.field}:${d.code}`),
          name,
        ).to.deep.equal(['offline_ticket:invalid_for_cfdi']);
        expect(other.body.error.details[0].message, name).to.contain(name);
        const claim = await claimOf(link);
        expectError(claim, 400, 'validation_failed');
        expect(
          claim.body.error.details.map((d: { field: string; code: string }) => `${d.field}:${d.code}`),
          name,
        ).to.deep.equal(['s:invalid_for_cfdi']);
        expect(claim.body.error.details[0].message, name).to.contain(name);
        expect(await claims(saleId)).to.have.length(0);
        expect(await sales(saleId)).to.have.length(0);
      }
    });

    it('sends the buyer to the sale once it has arrived (409 with its link)', async () => {
      const key = await issueKey(account);
      const { body, ticket } = offlineSale(account, key);
      const caught = await postQr(account, body);
      const res = await claimOf(ticket.link);
      expectError(res, 409, 'offline_sale_arrived');
      expect(res.body.error.qr_content).to.equal(caught.body.qr_content);
    });

    it("lists the store's waiting tickets (most urgent first, no buyer data) and what became of them", async () => {
      const key = await issueKey(account, { windowHours: 5 });
      const older = offlineSale(account, key, new Date(Date.now() - 2 * 3_600_000));
      const newer = offlineSale(account, key, new Date(Date.now() - 60_000));
      for (const { ticket } of [newer, older]) expect((await claimOf(ticket.link)).status).to.equal(202);
      const list = async (query = '') => call('GET', `/v1/qrs/merchants/${account.merchantId}/offline-claims${query}`, { headers: bearer(account) });
      const waiting = (await list()).body.content as { saleId: string; closesAt: string; amount: string }[];
      const mine = waiting.filter((c) => [older.body.sale_id, newer.body.sale_id].includes(c.saleId));
      expect(mine.map((c) => c.saleId)).to.deep.equal([older.body.sale_id, newer.body.sale_id]);
      expect(JSON.stringify(waiting)).to.not.include(BUYER.rfc);
      expect(new Date(mine[0]!.closesAt).getTime()).to.equal(older.ticket.soldAt.getTime() + 5 * 3_600_000);

      expect((await postQr(account, older.body)).status).to.equal(201);
      const settle = await harness()
        .producers.queue('stamp')
        .getJob(jobId.settleOfflineClaimsOf((await sales(older.body.sale_id).first()).id as string));
      if (settle) await settle.waitUntilFinished(events, 30_000);
      expect(((await list()).body.content as { saleId: string }[]).map((c) => c.saleId)).to.not.include(older.body.sale_id);
      expect(((await list('?status=CONFIRMED')).body.content as { saleId: string }[]).map((c) => c.saleId)).to.include(older.body.sale_id);
      expectError(await list('?status=LOST'), 400, 'validation_failed');
      expectError(await call('GET', `/v1/qrs/merchants/${account.merchantId}/offline-claims`, { headers: bearer(other) }), 404, 'merchant_not_found');
    });

    it('tells the buyer by e-mail when the window passes without the sale, and nothing is stamped', async () => {
      const key = await issueKey(account, { windowHours: 1 });
      const { body, ticket } = offlineSale(account, key, new Date(Date.now() - 30 * 60_000));
      const email = `late-${randomUUID()}@example.test`;
      expect((await claimOf(ticket.link, { email })).status).to.equal(202);
      const later = new Date(Date.now() + 31 * 60_000);
      const settled = await settleOfflineClaimsJob(settleDeps(), {}, later);
      expect(settled.refused).to.be.at.least(1);
      const [claim] = await claims(body.sale_id);
      expect(claim).to.include({ status: 'REFUSED', refusal: 'window_passed', invoice_id: null });
      const mail = await mailTo(email);
      expect(mail?.body('text/plain')).to.include('no nos envió esta compra dentro del plazo');
      expectError(await claimOf(ticket.link, { email }), 409, 'offline_claim_settled');
    });

    it('e-mails one address at most OFFLINE_CLAIM_EMAILS_PER_ADDRESS_PER_DAY refusals a day, whatever the key holder claims for it (issue #39)', async () => {
      const limit = harness().deps.config.offlineClaimEmailsPerAddressPerDay;
      const key = await issueKey(account, { windowHours: 1 });
      const address = `target-${randomUUID()}@example.test`;
      const tickets = Array.from({ length: limit + 2 }, () => offlineSale(account, key, new Date(Date.now() - 30 * 60_000)));
      // The same mailbox spelt in other cases counts as one.
      for (const [i, { ticket }] of tickets.entries()) expect((await claimOf(ticket.link, { email: i % 2 ? address.toUpperCase() : address })).status).to.equal(202);
      const emailEvents = await queueEvents('email');
      try {
        await settleOfflineClaimsJob(settleDeps(), {}, new Date(Date.now() + 31 * 60_000));
        const outcomes = await Promise.all(
          tickets.map(async ({ body }) => {
            const job = await harness().producers.queue('email').getJob(jobId.emailOfflineClaim(key.keyId, body.sale_id));
            return ((await job!.waitUntilFinished(emailEvents, 30_000)) as { outcome: string }).outcome;
          }),
        );
        expect(outcomes.filter((o) => o === 'sent')).to.have.length(limit);
        expect(outcomes.filter((o) => o === 'limited')).to.have.length(2);
        const received = harness().smtp.messages.filter((m) => m.to.some((to) => to.toLowerCase() === address));
        expect(received).to.have.length(limit);
      } finally {
        await emailEvents.close();
      }
    });
  });
});
