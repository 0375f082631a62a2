import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { ID_PREFIX, newQrId } from '../../shared/platform/ids.js';
import { newQrToken } from '../../shared/qr/qr-link.js';
import { findQrTransaction } from '../../shared/repositories/qr-transactions.js';
import { salePartitionsOf } from '../../shared/repositories/sale-partition.js';
import { findSale } from '../../shared/repositories/sales.js';
import { harness } from '../helpers/harness.js';
import { call, expectError } from '../helpers/http.js';
import { postQr, qrBody, qrHeaders } from '../helpers/qr-body.js';

/**
 * Issue #40: GET /v1/qrs/{qrId} and the buyer's reads name the sale's month partition themselves (a generic plan on
 * the parent locks every month's partition at each run), then the legacy one. Keys are the client's input: one
 * naming a month no partition holds (dropped after its five years, or forged) is as unknown as any other.
 */
describe('sale reads on the partition their key names (issue #40)', function () {
  this.timeout(60_000);
  let account: BootstrapResult;
  before(async () => {
    account = await harness().bootstrap();
  });

  it('names the month of the instant a key carries, then the legacy partition; a key carrying no plausible instant names the legacy one alone', () => {
    const now = Date.UTC(2026, 10, 29, 12);
    expect(salePartitionsOf('id', newQrId(new Date(Date.UTC(2026, 10, 3))), now)).to.deep.equal(['p202611', 'legacy']);
    expect(salePartitionsOf('token', newQrToken(new Date(Date.UTC(2025, 0, 31, 23, 59))), now)).to.deep.equal(['p202501', 'legacy']);
    // Ahead of the clock by more than a day, before 2020, another kind's prefix, too short: not a sale's instant.
    expect(salePartitionsOf('id', newQrId(new Date(now + 2 * 86_400_000)), now)).to.deep.equal(['legacy']);
    expect(salePartitionsOf('id', newQrId(new Date(Date.UTC(2019, 11, 31))), now)).to.deep.equal(['legacy']);
    expect(salePartitionsOf('id', `mer_${newQrId(new Date(now)).slice(ID_PREFIX.transaction.length)}`, now)).to.deep.equal(['legacy']);
    expect(salePartitionsOf('token', 'abc', now)).to.deep.equal(['legacy']);
  });

  it('GET finds a sale on its month partition; an id or token naming a month without partition answers as unknown, not 500', async () => {
    const created = await postQr(account, qrBody(account.storeUid, { sale_id: `leaf-${randomUUID()}` }));
    expect(created.status).to.equal(201);
    const found = await call('GET', `/v1/qrs/${created.body.qr_id}`, { headers: qrHeaders(account) });
    expect(found.status).to.equal(200);
    expect(found.body.qr_id).to.equal(created.body.qr_id);

    // 2021: a month the keeper never made (its five years are not over, but the service was not running then).
    const forgedAt = new Date(Date.UTC(2021, 5, 15));
    const forgedId = newQrId(forgedAt);
    expect(salePartitionsOf('id', forgedId)).to.deep.equal(['p202106', 'legacy']);
    expectError(await call('GET', `/v1/qrs/${forgedId}`, { headers: qrHeaders(account) }), 404, 'transaction_not_found');
    expect(await findQrTransaction(harness().deps.db, account.merchantId, 'development', forgedId)).to.equal(undefined);
    expect(await findSale(harness().deps.db, { token: newQrToken(forgedAt) })).to.equal(undefined);
    expect(await findSale(harness().deps.db, { id: forgedId })).to.equal(undefined);
    // And the connection that met the missing partition serves the next read.
    expect((await call('GET', `/v1/qrs/${created.body.qr_id}`, { headers: qrHeaders(account) })).status).to.equal(200);
  });
});
