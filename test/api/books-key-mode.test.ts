import { expect } from 'chai';
import type { QueueEvents } from 'bullmq';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { localDateTime } from '../../shared/domain/time-zone.js';
import { createApiKey } from '../../shared/repositories/api-keys.js';
import { confirmReviewed, newQrLink, queueEventsOf, stamped } from '../helpers/buyer.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';

describe("an API key's books hold the CFDIs of its own mode, as its QR lists do (issue #39)", function () {
  this.timeout(120_000);
  let account: BootstrapResult;
  let production: BootstrapResult;
  let events: Record<'stamp', QueueEvents>;
  let closeEvents: () => Promise<void>;
  const invoiceOf = async (qrId: string) => (await harness().deps.db('invoices').where({ transaction_id: qrId }).first('id', 'uuid')) as { id: string; uuid: string };

  before(async () => {
    account = await harness().bootstrap();
    // Production keys come with the production invoice mode (issue #5): made here as that will.
    production = { ...account, apiKey: await createApiKey(harness().deps.db, account.merchantId, 'production') };
    ({ events, close: closeEvents } = await queueEventsOf('stamp'));
  });
  after(() => closeEvents());

  it('lists and sums up each mode apart; the account token reads both', async () => {
    const invoiced: Record<'development' | 'production', string> = { development: '', production: '' };
    for (const [mode, who] of [
      ['development', account],
      ['production', production],
    ] as const) {
      const link = await newQrLink(who);
      const confirmed = await confirmReviewed(link);
      expect(confirmed.status, JSON.stringify(confirmed.body)).to.be.oneOf([200, 202]);
      await stamped(events.stamp, link.qrId);
      invoiced[mode] = (await invoiceOf(link.qrId)).id;
    }
    const ids = async (headers: Record<string, string>) => {
      const res = await call('GET', '/v1/qrs/invoices?size=50', { headers });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return (res.body.content as { id: string }[]).map((i) => i.id);
    };
    expect(await ids({ 'X-API-Key': account.apiKey })).to.deep.equal([invoiced.development]);
    expect(await ids({ 'X-API-Key': production.apiKey })).to.deep.equal([invoiced.production]);
    expect(await ids({ Authorization: `Bearer ${account.accessToken}` })).to.have.members([invoiced.development, invoiced.production]);

    const today = localDateTime(new Date(), 'America/Mexico_City').slice(0, 10);
    const cfdiCount = async (headers: Record<string, string>) => {
      const res = await call('GET', `/v1/qrs/invoices/summary?from=${today}&to=${today}`, { headers });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return (res.body.items[0].cfdis as { count: number }[]).reduce((n, c) => n + c.count, 0);
    };
    expect(await cfdiCount({ 'X-API-Key': account.apiKey })).to.equal(1);
    expect(await cfdiCount({ 'X-API-Key': production.apiKey })).to.equal(1);
    expect(await cfdiCount({ Authorization: `Bearer ${account.accessToken}` })).to.equal(2);
  });
});
