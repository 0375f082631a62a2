import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Knex } from 'knex';
import type { BootstrapResult } from '../../cli/bootstrap.js';
import { newQrId } from '../../shared/platform/ids.js';
import { monthlyPartitionName, utcMonth } from '../../shared/platform/monthly-partitions.js';
import { newQrToken } from '../../shared/qr/qr-link.js';
import {
  findQrIn,
  findQrTransaction,
  recordQrTransaction,
  SALE_KEY_INDEX,
  SALE_QR_INDEX,
  SHORT_CODE_INDEX,
  tokenForShortCode,
  type NewQrTransaction,
} from '../../shared/repositories/qr-transactions.js';
import { FIND_SALES_BY_ID, findSale, findSaleByTokenIn, findSales } from '../../shared/repositories/sales.js';
import { salePartitionsOf, type SalePartition } from '../../shared/repositories/sale-partition.js';
import { CONFIRM_OPEN_QRS, RECORD_STAMP } from '../../shared/repositories/invoices.js';
import { harness } from '../helpers/harness.js';
import { moveToLegacyPartition } from '../helpers/legacy-sale.js';
import { expectError } from '../helpers/http.js';
import { postQr, qrBody } from '../helpers/qr-body.js';

type PlanNode = { Plans?: PlanNode[] } & Record<string, unknown>;
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

/** The partitions of `table` a statement read (EXPLAIN ANALYZE: nodes that ran). */
async function partitionsRead(db: Knex, text: string, values: unknown[], table: string): Promise<string[]> {
  const positional = [...text.matchAll(/\$(\d+)/g)].map((m) => values[Number(m[1]) - 1] as Knex.RawBinding);
  const { rows } = await db.raw<{ rows: { 'QUERY PLAN': [{ Plan: PlanNode }] }[] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${text.replace(/\$\d+/g, '?')}`, positional);
  const read = nodes(rows[0]!['QUERY PLAN'][0].Plan).filter(
    (n) => typeof n['Relation Name'] === 'string' && (n['Relation Name'] as string).startsWith(`${table}_`) && Number(n['Actual Loops']) > 0,
  );
  return [...new Set(read.map((n) => n['Relation Name'] as string))];
}

/** The partitions of `table` the planner kept for a statement (EXPLAIN without ANALYZE, the values bound as a client binds them). */
async function partitionsPlanned(db: Knex, text: string, values: unknown[], table: string): Promise<string[]> {
  const positional = [...text.matchAll(/\$(\d+)/g)].map((m) => values[Number(m[1]) - 1] as Knex.RawBinding);
  const { rows } = await db.raw<{ rows: { 'QUERY PLAN': [{ Plan: PlanNode }] }[] }>(`EXPLAIN (FORMAT JSON) ${text.replace(/\$\d+/g, '?')}`, positional);
  const planned = nodes(rows[0]!['QUERY PLAN'][0].Plan).filter((n) => typeof n['Relation Name'] === 'string' && (n['Relation Name'] as string).startsWith(`${table}_`));
  return [...new Set(planned.map((n) => n['Relation Name'] as string))].sort();
}

/**
 * The sales partitioned by month (issue #41, migration 20261128210000): keys that carry their instant, and the
 * rules that must hold across months, which PostgreSQL's per-partition unique indexes alone would not keep.
 */
describe('QR sales partitioned by month: keys, one-partition lookups and the rules unique across months', function () {
  this.timeout(60_000);
  let account: BootstrapResult;
  const db = () => harness().deps.db;
  before(async () => {
    account = await harness().bootstrap();
  });

  const newSale = async (saleId = `part-${randomUUID()}`) => {
    const res = await postQr(account, qrBody(account.storeUid, { sale_id: saleId }));
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return (await db()('qr_transactions').where({ id: res.body.qr_id }).first('id', 'token', 'short_code', 'created_at', 'idempotency_key', 'sale_id')) as {
      id: string;
      token: string;
      short_code: string;
      created_at: Date;
      idempotency_key: string;
      sale_id: string;
    };
  };

  const age = (id: string) => moveToLegacyPartition(db(), id);

  /** Another sale like `id`'s, made at `at`, with fresh keys unless told. */
  const copyOf = async (
    id: string,
    at: Date,
    keys: Partial<Pick<NewQrTransaction['transaction'], 'short_code' | 'idempotency_key' | 'sale_id'>> = {},
  ): Promise<NewQrTransaction> => {
    const sale = (await findSale(db(), { id }))!;
    return {
      transaction: {
        ...sale.record.transaction,
        id: newQrId(at),
        token: newQrToken(at),
        created_at: at,
        updated_at: at,
        short_code: keys.short_code ?? `Z${randomUUID().replace(/-/g, '').slice(0, 9).toUpperCase()}`,
        idempotency_key: keys.idempotency_key ?? randomUUID(),
        sale_id: keys.sale_id ?? `copy-${randomUUID()}`,
      },
      concepts: sale.record.concepts,
      taxes: sale.record.taxes,
    };
  };
  const constraintOf = async (write: Promise<unknown>) => {
    try {
      await write;
    } catch (err) {
      return (err as { constraint?: string }).constraint;
    }
    return 'written';
  };

  it("gives a sale an id and a token carrying its created_at; GET, the buyer's token and short code each read one month's partition", async () => {
    const sale = await newSale();
    const { rows } = await db().raw<{ rows: { by_id: Date; by_token: Date }[] }>(`SELECT qr_key_instant(substr(?, 5)) AS by_id, qr_key_instant(?) AS by_token`, [
      sale.id,
      sale.token,
    ]);
    expect(rows[0]).to.deep.equal({ by_id: sale.created_at, by_token: sale.created_at });
    const month = monthlyPartitionName('qr_transactions', utcMonth(sale.created_at));
    // Issue #40: the GET's and the buyer's reads name the month's partitions themselves, then the legacy one.
    const partition = month.slice('qr_transactions_'.length) as SalePartition;
    expect(salePartitionsOf('id', sale.id)).to.deep.equal([partition, 'legacy']);
    expect(salePartitionsOf('token', sale.token)).to.deep.equal([partition, 'legacy']);
    expect(await partitionsRead(db(), findSaleByTokenIn(partition).text, [sale.token], 'qr_transactions')).to.deep.equal([month]);
    expect(await partitionsRead(db(), findSaleByTokenIn(partition).text, [sale.token], 'qr_concepts')).to.deep.equal([
      monthlyPartitionName('qr_concepts', utcMonth(sale.created_at)),
    ]);
    expect(await partitionsRead(db(), findQrIn(partition).text, [sale.id, account.merchantId, 'development'], 'qr_transactions')).to.deep.equal([month]);
    expect(await tokenForShortCode(db(), sale.short_code)).to.equal(sale.token);

    // A sale of the old table's range (its keys need not carry its instant) is found there, once its key's month has none.
    await age(sale.id);
    expect(await partitionsRead(db(), findSaleByTokenIn('legacy').text, [sale.token], 'qr_transactions')).to.deep.equal(['qr_transactions_legacy']);
    expect((await findQrTransaction(db(), account.merchantId, 'development', sale.id))?.transaction.token).to.equal(sale.token);
    expect((await findSale(db(), { token: sale.token }))?.record.concepts).to.have.length.greaterThan(0);
    expect(await tokenForShortCode(db(), sale.short_code)).to.equal(sale.token);
  });

  it("plans only the months a statement's keys name, and the legacy partition: GET, the buyer's page, a stamp batch, the confirmation, the stamp's record (planning cost)", async () => {
    const sale = await newSale();
    const sales = (await findSales(db(), [sale.id])).get(sale.id);
    expect(sales?.record.concepts).to.have.length.greaterThan(0);
    const [partition] = salePartitionsOf('id', sale.id);
    for (const table of ['qr_transactions', 'qr_concepts', 'qr_concept_taxes']) {
      // One partition, named by the statement: a generic plan locks it alone (issue #40).
      const own = [monthlyPartitionName(table, utcMonth(sale.created_at))];
      expect(await partitionsPlanned(db(), findQrIn(partition!).text, [sale.id, account.merchantId, 'development'], table), `GET's ${table}`).to.deep.equal(own);
      expect(await partitionsPlanned(db(), findSaleByTokenIn(partition!).text, [sale.token], table), `the buyer's ${table}`).to.deep.equal(own);
      if (table === 'qr_transactions') continue;
      const kept = [monthlyPartitionName(table, utcMonth(sale.created_at)), `${table}_legacy`].sort();
      expect(await partitionsPlanned(db(), FIND_SALES_BY_ID.text, [[sale.id], [sale.created_at]], table), `a stamp batch's ${table}`).to.deep.equal(kept);
    }
    const months = [monthlyPartitionName('qr_transactions', utcMonth(sale.created_at)), 'qr_transactions_legacy'].sort();
    expect(await partitionsPlanned(db(), FIND_SALES_BY_ID.text, [[sale.id], [sale.created_at]], 'qr_transactions')).to.deep.equal(months);
    // The confirmation and the stamp's record name their sales by id: their months too (EXPLAIN alone: nothing is written).
    const confirm = ['cfd_x', [sale.id], account.merchantId, '{}', new Date(), ['evt_x'], new Date().toISOString(), [sale.created_at]];
    expect(await partitionsPlanned(db(), CONFIRM_OPEN_QRS.text, confirm, 'qr_transactions'), 'the confirmation').to.deep.equal(months);
    const stamp = ['cfd_x', 'uuid', new Date(), 'xml', '1', '0', '1.16', 'invoice.stamped', new Date().toISOString(), '[]', [sale.created_at]];
    expect(await partitionsPlanned(db(), RECORD_STAMP.text, stamp, 'qr_transactions'), "the stamp's record").to.deep.equal(months);
  });

  it("refuses an id or token in a month that is not its instant's (the month's CHECK), and a second one at that instant (the month's index)", async () => {
    const sale = await newSale();
    const at = sale.created_at;
    const trx = await db().transaction();
    try {
      const insert = (id: string, token: string, createdAt: Date | Knex.Raw) =>
        trx.transaction((sp) =>
          sp.raw(
            `INSERT INTO qr_transactions SELECT (jsonb_populate_record(t, jsonb_build_object('id', ?::text, 'token', ?::text, 'created_at', ?::timestamptz,
               'sale_id', ?::text, 'status', 'EXPIRED'))).* FROM qr_transactions t WHERE t.id = ?`,
            [id, token, createdAt, `dup-${randomUUID()}`, sale.id],
          ),
        );
      const refusal = async (write: Promise<unknown>) => {
        try {
          await write;
        } catch (err) {
          return `${(err as { code: string }).code} ${(err as { constraint?: string }).constraint ?? ''}`;
        }
        return 'written';
      };
      const later = new Date(at.getTime() + 1);
      // The same token one millisecond later: its month's CHECK refuses it.
      expect(await refusal(insert(newQrId(later), sale.token, later))).to.match(/^23514 .*_keys_carry_time$/);
      // The same token at its own instant: the month's unique (token, created_at).
      expect(await refusal(insert(newQrId(at), sale.token, at))).to.match(/^23505 /);
      expect(await refusal(insert(sale.id, newQrToken(at), at))).to.match(/^23505 qr_transactions_p\d{6}_pkey$/);
      // A sale in each month ahead is accepted.
      for (const months of [1, 2]) {
        const then = new Date(utcMonth(at, months).getTime() + 3_600_000);
        expect(await refusal(insert(newQrId(then), newQrToken(then), then))).to.equal('written');
      }
    } finally {
      await trx.rollback();
    }
  });

  it('keeps one open or invoiced QR per sale across months: a sale whose QR is in an older month is refused, concurrently too', async () => {
    const old = await newSale();
    await age(old.id);
    // POST /v1/qrs names the QR the sale has, though it lives in another partition.
    const again = await postQr(account, qrBody(account.storeUid, { sale_id: old.sale_id }));
    expectError(again, 409, 'sale_has_qr');
    expect(again.body.error.qr.qr_id).to.equal(old.id);

    // Writers of one new sale in three different months at once: one wins.
    const template = await newSale();
    const saleId = `race-months-${randomUUID()}`;
    const now = new Date();
    const instants = [now, new Date(utcMonth(now, 1).getTime() + 60_000), new Date(utcMonth(now, 2).getTime() + 60_000)];
    const records = await Promise.all(instants.flatMap((at) => [0, 1, 2].map(() => copyOf(template.id, at, { sale_id: saleId }))));
    const outcomes = await Promise.all(records.map((r) => constraintOf(recordQrTransaction(db(), r, { scope: 'qr.create', fingerprint: 'fp' }))));
    expect(outcomes.filter((o) => o === 'written')).to.have.length(1);
    expect(outcomes.filter((o) => o !== 'written')).to.deep.equal(Array(records.length - 1).fill(SALE_QR_INDEX));
    // Expired, it frees the sale in every month.
    await db()('qr_transactions').where({ sale_id: saleId }).update({ status: 'EXPIRED' });
    expect(await constraintOf(recordQrTransaction(db(), await copyOf(template.id, instants[2]!, { sale_id: saleId }), { scope: 'qr.create', fingerprint: 'fp' }))).to.equal(
      'written',
    );
  });

  it("keeps a short code and a sale's idempotency key unique across months", async () => {
    const old = await newSale();
    await age(old.id);
    const next = new Date(utcMonth(new Date(), 1).getTime() + 60_000);
    const claim = { scope: 'qr.create', fingerprint: 'fp' };
    expect(await constraintOf(recordQrTransaction(db(), await copyOf(old.id, next, { short_code: old.short_code }), claim))).to.equal(SHORT_CODE_INDEX);
    // The key's idempotency record gone (its days dropped), the sale still holds it.
    await db()('idempotency_keys').where({ merchant_id: account.merchantId, key: old.idempotency_key }).del();
    expect(await constraintOf(recordQrTransaction(db(), await copyOf(old.id, next, { idempotency_key: old.idempotency_key }), claim))).to.equal(SALE_KEY_INDEX);
  });
});
