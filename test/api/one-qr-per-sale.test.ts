import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { localDateTime } from '../../shared/domain/time-zone.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';
import { postQr, qrBody } from '../helpers/qr-body.js';

describe('one QR per sale: the same sale_id posted again with another idempotency key (issue #39)', function () {
  this.timeout(60_000);
  let account: BootstrapResult;
  before(async () => {
    account = await harness().bootstrap();
  });
  const db = () => harness().deps.db;
  const rowsOf = (saleId: string) => db()('qr_transactions').where({ merchant_id: account.merchantId, sale_id: saleId }).orderBy('created_at').select('id', 'status');

  it('answers 409 sale_has_qr with the QR the sale has, and writes nothing', async () => {
    const saleId = `lost-key-${randomUUID()}`;
    const first = await postQr(account, qrBody(account.storeUid, { sale_id: saleId }));
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    const secondKey = randomUUID();
    const again = await postQr(account, qrBody(account.storeUid, { sale_id: saleId }), secondKey);
    expectError(again, 409, 'sale_has_qr');
    expect(again.body.error.qr).to.deep.equal({ qr_id: first.body.qr_id, status: 'PENDING', created_at: first.body.created_at, expires_at: first.body.expires_at });
    expect(again.body.error.details).to.deep.equal([{ field: 'sale_id', code: 'sale_has_qr', message: `This sale_id already has QR ${first.body.qr_id as string} (PENDING).` }]);
    expect(await rowsOf(saleId)).to.have.length(1);
    // The refused key was not claimed: the POS's next sale can use it.
    const next = await postQr(account, qrBody(account.storeUid), secondKey);
    expect(next.status, JSON.stringify(next.body)).to.equal(201);
  });

  it('lets one of many concurrent posts of a sale win; the others name the winner', async () => {
    const saleId = `race-${randomUUID()}`;
    const answers = await Promise.all(Array.from({ length: 12 }, () => postQr(account, qrBody(account.storeUid, { sale_id: saleId }))));
    const created = answers.filter((a) => a.status === 201);
    expect(created, answers.map((a) => `${a.status} ${JSON.stringify(a.body)}`).join('\n')).to.have.length(1);
    for (const refused of answers.filter((a) => a.status !== 201)) {
      expectError(refused, 409, 'sale_has_qr');
      expect(refused.body.error.qr.qr_id).to.equal(created[0]!.body.qr_id);
    }
    expect(await rowsOf(saleId)).to.deep.equal([{ id: created[0]!.body.qr_id, status: 'PENDING' }]);
  });

  it('holds an invoiced sale too, and frees an expired one; the summary names the sale with two QRs', async () => {
    const invoiced = `invoiced-${randomUUID()}`;
    const first = await postQr(account, qrBody(account.storeUid, { sale_id: invoiced }));
    await db()('qr_transactions').where({ id: first.body.qr_id }).update({ status: 'INVOICED' });
    expectError(await postQr(account, qrBody(account.storeUid, { sale_id: invoiced })), 409, 'sale_has_qr');

    const expired = `expired-${randomUUID()}`;
    const old = await postQr(account, qrBody(account.storeUid, { sale_id: expired }));
    await db()('qr_transactions').where({ id: old.body.qr_id }).update({ status: 'EXPIRED', expired_at: new Date() });
    const reissued = await postQr(account, qrBody(account.storeUid, { sale_id: expired }));
    expect(reissued.status, JSON.stringify(reissued.body)).to.equal(201);
    expect((await rowsOf(expired)).map((r) => r.status)).to.deep.equal(['EXPIRED', 'PENDING']);

    const today = localDateTime(new Date(), 'America/Mexico_City').slice(0, 10);
    const summary = await call('GET', `/v1/qrs/invoices/summary?from=${today}&to=${today}`, { headers: { 'X-API-Key': account.apiKey } });
    expect(summary.status, JSON.stringify(summary.body)).to.equal(200);
    const repeated = (summary.body.items[0].differences as { code: string; qr_id: string; sale_id: string; message: string }[]).filter((d) => d.code === 'sale_repeated');
    expect(repeated.map((d) => [d.sale_id, d.qr_id]).sort()).to.deep.equal(
      [
        [expired, old.body.qr_id],
        [expired, reissued.body.qr_id],
      ].sort(),
    );
    expect(repeated[0]!.message).to.include(`${old.body.qr_id as string} (EXPIRED), ${reissued.body.qr_id as string} (PENDING)`);
  });
});
