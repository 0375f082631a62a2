import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { qrTransactionView, type ViewContext } from '../../api/contract/qrs/qr-transaction-view.js';
import { FixedViewCache, readOwnQr } from '../../api/qrs/stored-qr.js';
import { knexConfig } from '../../shared/platform/db.js';
import { findApiKeyPrincipal, type ApiKeyPrincipal } from '../../shared/repositories/api-keys.js';
import { salePartitionsOf } from '../../shared/repositories/sale-partition.js';
import { harness } from '../helpers/harness.js';
import { call } from '../helpers/http.js';
import { postQr, qrBody, qrHeaders } from '../helpers/qr-body.js';

/**
 * Issue #40: GET /v1/qrs/{qrId} of a sale whose view's fixed parts the process keeps (a POS polling its QR) reads
 * the sale's row alone, not its concepts and taxes (never changed after the insert; their JSON was ~40 % of the
 * read's PostgreSQL CPU). The statements are counted on a connection of the test's own.
 */
describe("GET's read of a sale whose view's fixed parts are kept (issue #40)", function () {
  this.timeout(60_000);
  let account: BootstrapResult;
  let principal: ApiKeyPrincipal;
  let own: Knex;
  let client: unknown;
  const names: string[] = [];
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = prototype.query;
  const ctx = (): ViewContext => {
    const { config, catalogs } = harness().deps;
    return { catalogs, publicBaseUrl: config.publicBaseUrl, qrHmacKey: config.qrHmacKey, urlSigningKey: config.urlSigningKey };
  };

  before(async () => {
    account = await harness().bootstrap();
    principal = (await findApiKeyPrincipal(harness().deps.db, account.apiKey))!;
    own = knexFactory({ ...knexConfig(harness().deps.config.databaseUrl), pool: { min: 1, max: 1 } });
    const pool = own.client as { acquireConnection(): Promise<unknown>; releaseConnection(connection: unknown): Promise<void> };
    client = await pool.acquireConnection();
    await pool.releaseConnection(client);
    prototype.query = function namedQuery(this: unknown, ...args: unknown[]): unknown {
      const name = (args[0] as { name?: string } | undefined)?.name;
      if (this === client && name) names.push(name);
      return Reflect.apply(query, this, args);
    };
  });
  after(async () => {
    prototype.query = query;
    await own.destroy();
  });

  const sale = async () => {
    const created = await postQr(account, qrBody(account.storeUid));
    expect(created.status).to.equal(201);
    return created.body as { qr_id: string; qr_content: string; operation_data: unknown[] };
  };
  /** readOwnQr on the test's connection: the statements it named, and the view it makes. */
  const read = async (qrId: string, cache: FixedViewCache, context: ViewContext = ctx(), as: ApiKeyPrincipal = principal) => {
    names.length = 0;
    const found = await readOwnQr({ db: own, readDb: own }, as, qrId, context, cache);
    return { statements: [...names], view: found && qrTransactionView(found.record, context, found.fixed, found.invoice, found.globalInvoice) };
  };

  it('the first read reads the concepts and taxes; the next ones the row alone, and the view is the same', async () => {
    const { qr_id } = await sale();
    const [month] = salePartitionsOf('id', qr_id);
    const cache = new FixedViewCache();
    const first = await read(qr_id, cache);
    expect(first.statements).to.deep.equal([`find_qr_transaction_v5_${month}`]);
    const second = await read(qr_id, cache);
    expect(second.statements).to.deep.equal([`find_qr_head_v1_${month}`]);
    expect(second.view).to.deep.equal(first.view);
    expect(second.view!.operation_data).to.have.length.greaterThan(0);
    // The status and the rest of the row are read each time: a scan shows at once.
    await harness().deps.db('qr_transactions').where({ id: qr_id }).update({ status: 'SCANNED', scanned_at: new Date() });
    const scanned = await read(qr_id, cache);
    expect(scanned.statements).to.deep.equal([`find_qr_head_v1_${month}`]);
    expect(scanned.view).to.include({ status: 'SCANNED' });
    expect(scanned.view!.operation_data).to.deep.equal(first.view!.operation_data);
  });

  it('parts kept under another context, or no longer kept, or a row that no longer matches them: the whole read, with the right view', async () => {
    const { qr_id } = await sale();
    const [month] = salePartitionsOf('id', qr_id);
    const full = `find_qr_transaction_v5_${month}`;
    const head = `find_qr_head_v1_${month}`;
    const cache = new FixedViewCache(1);
    await read(qr_id, cache);
    // Another base URL (another app of this process): its link and image URL are not the kept ones.
    const elsewhere = { ...ctx(), publicBaseUrl: 'https://otra.example.test' };
    const other = await read(qr_id, cache, elsewhere);
    expect(other.statements).to.deep.equal([head, full]);
    expect(other.view!.qr_content.startsWith('https://otra.example.test/')).to.equal(true);
    // Evicted by another sale's read (room for one): the whole read again.
    const { qr_id: second } = await sale();
    await read(second, cache);
    expect((await read(qr_id, cache)).statements).to.deep.equal([full]);
    // The expiry moved (the parts' signed image URL follows it): read whole, the URL signed anew.
    const before = await read(qr_id, cache);
    await harness()
      .deps.db('qr_transactions')
      .where({ id: qr_id })
      .update({ expires_at: new Date(Date.now() + 3600_000) });
    const moved = await read(qr_id, cache);
    expect(moved.statements).to.deep.equal([head, full]);
    expect(moved.view!.qr_url).to.not.equal(before.view!.qr_url);
  });

  it("another merchant's key for a kept id: not found, from the row's reads alone", async () => {
    const { qr_id } = await sale();
    const cache = new FixedViewCache();
    await read(qr_id, cache);
    const other = await harness().bootstrap();
    const stranger = (await findApiKeyPrincipal(harness().deps.db, other.apiKey))!;
    const foreign = await read(qr_id, cache, ctx(), stranger);
    expect(foreign.view).to.equal(undefined);
    // Its month's partition, then the legacy one (sale-partition.ts); never the concepts.
    expect(foreign.statements).to.deep.equal(salePartitionsOf('id', qr_id).map((p) => `find_qr_head_v1_${p}`));
  });

  it('over HTTP: a GET after GETs answers the same body', async () => {
    const { qr_id } = await sale();
    const bodies = [];
    for (let i = 0; i < 3; i++) bodies.push((await call('GET', `/v1/qrs/${qr_id}`, { headers: qrHeaders(account) })).body);
    expect(bodies[1]).to.deep.equal(bodies[0]);
    expect(bodies[2]).to.deep.equal(bodies[0]);
  });
});
