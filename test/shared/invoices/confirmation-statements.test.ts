import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { BootstrapResult } from '../../../cli/bootstrap.js';
import { knexConfig } from '../../../shared/platform/db.js';
import { newId } from '../../../shared/platform/ids.js';
import { recordConfirmation } from '../../../shared/repositories/invoices.js';
import { BUYER, newQrLink } from '../../helpers/buyer.js';
import { harness } from '../../helpers/harness.js';
import { moveToLegacyPartition } from '../../helpers/legacy-sale.js';

/**
 * Issue #40: a confirmation of open QRs is one statement (it was 8: BEGIN, the lock, the refused folio, the
 * merchant's folio, the invoice, its tickets, the QRs, the qr.scanned events, COMMIT), counted on a connection
 * of the test's own; what cannot be claimed still answers why, as before.
 */
describe('recordConfirmation: one statement for open QRs (issue #40)', function () {
  this.timeout(60_000);
  let account: BootstrapResult;
  let own: Knex;
  let client: unknown;
  let counted = 0;
  const names: string[] = [];
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = prototype.query;

  before(async () => {
    account = await harness().bootstrap();
    own = knexFactory({ ...knexConfig(harness().deps.config.databaseUrl), pool: { min: 1, max: 1 } });
    // Its one connection: the statements it sends are this test's alone (the harness's workers have their own).
    const pool = own.client as { acquireConnection(): Promise<unknown>; releaseConnection(connection: unknown): Promise<void> };
    client = await pool.acquireConnection();
    await pool.releaseConnection(client);
    prototype.query = function countedQuery(this: unknown, ...args: unknown[]): unknown {
      if (this === client) {
        counted++;
        const name = (args[0] as { name?: string } | undefined)?.name;
        if (name) names.push(name);
      }
      return Reflect.apply(query, this, args);
    };
  });
  after(async () => {
    prototype.query = query;
    await own.destroy();
  });

  const statementsOf = async <T>(run: () => Promise<T>): Promise<{ result: T; statements: number }> => {
    const before = counted;
    const result = await run();
    return { result, statements: counted - before };
  };
  const confirm = (transactionIds: [string, ...string[]]) =>
    statementsOf(() => recordConfirmation(own, { invoiceId: newId('invoice'), transactionIds, merchantId: account.merchantId, customer: BUYER }));

  it('two open tickets: one statement writes the invoice with its folio, its tickets, the QRs confirmed and their events', async () => {
    const [first, second] = [await newQrLink(account), await newQrLink(account)];
    const { result, statements } = await confirm([first.qrId, second.qrId]);
    expect(statements).to.equal(1);
    expect(result.ok).to.equal(true);
    if (!result.ok) return;
    expect(result.invoice).to.include({ status: 'STAMPING', transaction_id: first.qrId, merchant_id: account.merchantId });
    expect(result.invoice.customer).to.deep.equal(BUYER);
    const { db } = harness().deps;
    expect(await db('invoice_tickets').where({ invoice_id: result.invoice.id }).orderBy('position').select('transaction_id', 'position')).to.deep.equal([
      { transaction_id: first.qrId, position: 0 },
      { transaction_id: second.qrId, position: 1 },
    ]);
    const qrs = await db('qr_transactions').whereIn('id', [first.qrId, second.qrId]).select('status', 'confirmed_at', 'scanned_at');
    expect(qrs.every((q: { status: string; confirmed_at: Date | null; scanned_at: Date | null }) => q.status === 'SCANNED' && q.confirmed_at && q.scanned_at)).to.equal(true);
    const { last_folio } = (await db('merchant_folios').where({ merchant_id: account.merchantId }).first('last_folio')) as { last_folio: string };
    expect(result.invoice.folio).to.equal(last_folio);
  });

  it('what cannot be claimed answers why: confirmed already (with its invoice), expired', async () => {
    const link = await newQrLink(account);
    const first = await confirm([link.qrId]);
    expect(first.result.ok).to.equal(true);
    const again = await confirm([link.qrId]);
    expect(again.result).to.deep.include({ ok: false, reason: 'already_confirmed' });
    expect((again.result as { invoice?: { id: string } }).invoice?.id).to.equal(first.result.ok ? first.result.invoice.id : undefined);
    const old = await newQrLink(account);
    await harness()
      .deps.db('qr_transactions')
      .where({ id: old.qrId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect((await confirm([old.qrId])).result).to.deep.equal({ ok: false, reason: 'expired' });
  });

  it("one ticket, the common confirmation: one statement on its month's partition, which PostgreSQL keeps on its generic plan; a sale of the legacy partition is claimed by the transaction", async () => {
    const links = [];
    for (let i = 0; i < 8; i++) links.push(await newQrLink(account));
    for (const link of links) {
      const { result, statements } = await confirm([link.qrId]);
      expect(result.ok).to.equal(true);
      expect(statements).to.equal(1);
    }
    const name = names.at(-1)!;
    expect(name).to.match(/^confirm_open_qrs_v3_p\d{6}$/);
    // On the parent it was planned anew at every run (issue #40): 2.2 ms of planning a confirmation.
    const [plans] = (await own.raw('SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = ?', [name])).rows as {
      generic_plans: string;
      custom_plans: string;
    }[];
    expect(Number(plans!.custom_plans)).to.be.at.most(5);
    expect(Number(plans!.generic_plans)).to.be.at.least(3);

    // A sale moved to the legacy partition (an older sale's place): the partition's statement finds nothing, the transaction claims it.
    const old = await newQrLink(account);
    const { db } = harness().deps;
    await moveToLegacyPartition(db, old.qrId);
    const { result, statements } = await confirm([old.qrId]);
    expect(result.ok).to.equal(true);
    expect(statements).to.be.greaterThan(1);
    expect(await db('qr_transactions').where({ id: old.qrId }).first('status')).to.deep.equal({ status: 'SCANNED' });
  });
});
