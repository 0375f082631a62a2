import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { config } from '../../../shared/platform/config.js';
import { newQrId } from '../../../shared/platform/ids.js';
import { monthlyPartitionName, partitionRanges, utcMonth } from '../../../shared/platform/monthly-partitions.js';
import { newQrToken } from '../../../shared/qr/qr-link.js';
import {
  findQrTransaction,
  qrHoldingSale,
  recordQrTransaction,
  SALE_QR_INDEX,
  SHORT_CODE_INDEX,
  tokenForShortCode,
  type NewQrTransaction,
} from '../../../shared/repositories/qr-transactions.js';
import { findSale } from '../../../shared/repositories/sales.js';
import { lockUnclaimedSales } from '../../../shared/repositories/global-invoices.js';
import { keepPartitionsJob } from '../../../workers/keep-partitions.js';
import { databaseBeforeMigration } from '../../helpers/database-before-migration.js';

const MIGRATION = '20261128210000_partition_qr_transactions.ts';
const SALES = 3_000;
const MERCHANT = 'mer_qrmig';

/**
 * The sales' migration on a database that already holds them (issue #41): the schema as it was before it,
 * 3,000 sales over 90 days with their concepts, taxes, invoices and tickets (ids, tokens and short codes of
 * the old random form), then the migration alone. On a database of its own, so the suite's stays the latest.
 */
describe('migration 20261128210000: qr_transactions and its lines partitioned by month on a populated database', function () {
  this.timeout(240_000);
  const url = `${config().databaseUrl}_qr_partition_migration`;
  let db: Knex;

  before(async () => {
    db = await databaseBeforeMigration(url, MIGRATION);
    // One real merchant (a new sale after the migration is checked against it), and the old rows written as
    // PostgreSQL writes a bench's.
    await db.raw(`INSERT INTO accounts (id, name, client_id, client_secret_hash) VALUES ('acc_qrmig', 'qrmig', 'cli_qrmig', '\\x00')`);
    await db.raw(`INSERT INTO groups (id, account_id, name) VALUES ('grp_qrmig', 'acc_qrmig', 'g')`);
    await db.raw(`INSERT INTO issuers (id, account_id, group_id, alias, rfc, id_cif, business_name, email, zip, tax_regime_code)
      VALUES ('inv_data_qrmig', 'acc_qrmig', 'grp_qrmig', 'a', 'EKU9003173C9', '1', 'ESCUELA KEMPER URGATE', 'a@example.com', '42501', '601')`);
    await db.raw(`INSERT INTO merchants (id, account_id, issuer_id, external_merchant_id, name, status)
      VALUES ('${MERCHANT}', 'acc_qrmig', 'inv_data_qrmig', 'ext-qrmig', 'Store', 'ACTIVE')`);
    await db.raw(
      `INSERT INTO qr_transactions (id, merchant_id, mode, store_uid, sale_id, idempotency_key, operation, amount, subtotal, currency,
         sat_payment_method, sat_payment_form, type_of_receipt, export_code, status, token, short_code, time_zone, issued_local,
         qr_png, created_at, updated_at, expires_at)
       SELECT 'tra_' || substr(md5('i' || n), 1, 22), '${MERCHANT}', 'development', 'ext-qrmig', 'M-' || n, md5('k' || n),
         'INVOICE', 116, 100, 'MXN', 'PUE', '04', 'I', '01',
         CASE WHEN n % 10 = 0 THEN 'INVOICED' WHEN n % 3 = 0 THEN 'PENDING' ELSE 'EXPIRED' END,
         substr(md5('t' || n), 1, 22), upper(substr(md5('s' || n), 1, 10)), 'America/Mexico_City', '2026-01-01T12:00:00',
         CASE WHEN n % 3 = 0 AND n % 10 <> 0 THEN '\\x89504e47'::bytea END,
         now() - (n % 90) * interval '1 day', now() - (n % 90) * interval '1 day', now() - (n % 90) * interval '1 day' + interval '3 days'
       FROM generate_series(1, ?::int) AS n`,
      [SALES],
    );
    await db.raw(`INSERT INTO qr_concepts (transaction_id, position, description, amount, quantity, unit_price, sat_unit_key, sat_product_service_key, sat_tax_object_key)
      SELECT id, p, 'line ' || p, 50, 1, 50, 'H87', '01010101', '02' FROM qr_transactions, generate_series(0, 1) AS p`);
    await db.raw(`INSERT INTO qr_concept_taxes (transaction_id, concept_position, position, type, tax, factor, rate, taxable_base, amount)
      SELECT transaction_id, position, 0, 'TRANSFERRED', '002', 'Tasa', '0.160000', 50, 8 FROM qr_concepts`);
    await db.raw(`INSERT INTO invoices (id, transaction_id, merchant_id, status, folio, customer, stamped_at)
      SELECT 'cfd_' || id, id, merchant_id, 'ACTIVE', row_number() OVER (ORDER BY id), '{}', created_at + interval '1 day' FROM qr_transactions WHERE status = 'INVOICED'`);
    await db.raw(`INSERT INTO invoice_tickets (invoice_id, position, transaction_id) SELECT id, 0, transaction_id FROM invoices`);
  });
  after(() => db.destroy());

  const digest = async () =>
    (
      await db.raw<{ rows: Record<string, string | number>[] }>(
        `SELECT (SELECT count(*) FROM qr_transactions)::int AS sales, (SELECT count(*) FROM qr_concepts)::int AS concepts,
           (SELECT count(*) FROM qr_concept_taxes)::int AS taxes, (SELECT count(*) FROM invoice_tickets)::int AS tickets,
           (SELECT md5(string_agg(t::text, ',' ORDER BY id)) FROM qr_transactions t) AS sales_digest,
           (SELECT md5(string_agg(transaction_id || position || description || amount, ',' ORDER BY transaction_id, position)) FROM qr_concepts) AS concepts_digest,
           (SELECT md5(string_agg(transaction_id || concept_position || tax || amount, ',' ORDER BY transaction_id, concept_position)) FROM qr_concept_taxes) AS taxes_digest`,
      )
    ).rows[0]!;

  /** An old sale's row, by its number in the series above. */
  const oldSale = async (n: number) =>
    (await db('qr_transactions')
      .where({ sale_id: `M-${n}` })
      .first('id', 'token', 'short_code', 'created_at', 'sale_id')) as {
      id: string;
      token: string;
      short_code: string;
      created_at: Date;
      sale_id: string;
    };

  it('keeps every row, in the old table attached whole, and the old ids, tokens and short codes resolve', async () => {
    const before = await digest();
    expect(before).to.include({ sales: SALES, concepts: 2 * SALES, taxes: 2 * SALES, tickets: SALES / 10 });
    await db.migrate.up();

    expect(await digest()).to.deep.equal(before);
    for (const table of ['qr_transactions', 'qr_concepts', 'qr_concept_taxes']) {
      const { rows } = await db.raw<{ rows: { relkind: string }[] }>('SELECT relkind FROM pg_class WHERE relname = ?', [table]);
      expect(rows[0]?.relkind, table).to.equal('p');
      const ranges = await partitionRanges(db, table);
      expect(ranges[0], table).to.include({ name: `${table}_legacy`, from: null });
      // Then the rest of this month from the migration's instant, and two months ahead.
      expect(ranges.slice(1).map((r) => r.name)).to.deep.equal([0, 1, 2].map((m) => monthlyPartitionName(table, utcMonth(ranges[0]!.to, m))));
      const held = await db.raw<{ rows: { n: number }[] }>(`SELECT count(*)::int AS n FROM ONLY ${table}_legacy`);
      expect(held.rows[0]?.n, table).to.equal(table === 'qr_transactions' ? SALES : 2 * SALES);
    }
    // The old table's indexes became the partition's as they were, none built twice.
    const indexes = await db.raw<{ rows: { name: string }[] }>(
      `SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'qr_transactions_legacy'::regclass ORDER BY 1`,
    );
    expect(indexes.rows.map((r) => r.name)).to.deep.equal(
      ['created_at_idx', 'expired_at_idx', 'global_invoice_idx', 'merchant_created_idx', 'open_expiry_idx', 'pkey', 'scanned_at_idx', 'token_key', 'unreported_period_idx'].map(
        (suffix) => `qr_transactions_legacy_${suffix}`,
      ),
    );
    for (const n of [1, 30, 1_000, 2_999]) {
      const sale = await oldSale(n);
      expect((await findQrTransaction(db, MERCHANT, 'development', sale.id))?.transaction.token, `GET ${n}`).to.equal(sale.token);
      const found = await findSale(db, { token: sale.token });
      expect(found?.record.transaction.id, `token ${n}`).to.equal(sale.id);
      expect(found?.record.concepts.map((c) => c.description)).to.deep.equal(['line 0', 'line 1']);
      expect(found?.record.taxes).to.have.length(2);
      expect(await tokenForShortCode(db, sale.short_code), `short code ${n}`).to.equal(sale.token);
    }
    // A period's unclaimed old sales (instants to the microsecond, the legacy partition) are read with their lines.
    const unclaimed = await Promise.all([4, 5, 7].map(async (n) => (await oldSale(n)).id));
    const periodEnd = new Date(Date.now() - 3_600_000);
    await db('qr_transactions').whereIn('id', unclaimed).update({ global_period_end: periodEnd, global_periodicity: '04' });
    const period = await db.transaction((trx) => lockUnclaimedSales(trx, MERCHANT, periodEnd));
    expect(period.sales.map((s) => s.id).sort()).to.deep.equal([...unclaimed].sort());
    expect(period.concepts.map((c) => c.transaction_id).sort()).to.deep.equal([...unclaimed, ...unclaimed].sort());
    expect(period.taxes).to.have.length(6);
    await db('qr_transactions').whereIn('id', unclaimed).update({ global_period_end: null, global_periodicity: null });
    // An open and an invoiced sale hold their sale_id; an expired one does not.
    expect((await qrHoldingSale(db, MERCHANT, 'development', 'M-3'))?.id).to.equal((await oldSale(3)).id);
    expect((await qrHoldingSale(db, MERCHANT, 'development', 'M-10'))?.id).to.equal((await oldSale(10)).id);
    expect(await qrHoldingSale(db, MERCHANT, 'development', 'M-1')).to.equal(undefined);
    const tickets = await db.raw<{ rows: { wrong: number }[] }>(
      `SELECT count(*)::int AS wrong FROM invoice_tickets k JOIN qr_transactions t ON t.id = k.transaction_id WHERE k.transaction_created_at <> t.created_at`,
    );
    expect(tickets.rows[0]?.wrong).to.equal(0);
  });

  it("checks a new sale against the old ones' short codes and live sales, and writes it in its month", async () => {
    const old = await oldSale(3);
    const template = (await findSale(db, { id: old.id }))!;
    const now = new Date();
    const record = (keys: { short_code?: string; sale_id?: string }): NewQrTransaction => ({
      transaction: {
        ...template.record.transaction,
        id: newQrId(now),
        token: newQrToken(now),
        created_at: now,
        updated_at: now,
        idempotency_key: randomUUID(),
        short_code: keys.short_code ?? 'NEWCODE234',
        sale_id: keys.sale_id ?? `N-${randomUUID()}`,
      },
      concepts: template.record.concepts,
      taxes: template.record.taxes,
    });
    const claim = { scope: 'qr.create', fingerprint: 'fp' };
    const refused = async (r: NewQrTransaction) =>
      recordQrTransaction(db, r, claim).then(
        () => 'written',
        (err: { constraint?: string }) => err.constraint,
      );
    expect(await refused(record({ short_code: old.short_code }))).to.equal(SHORT_CODE_INDEX);
    expect(await refused(record({ sale_id: old.sale_id }))).to.equal(SALE_QR_INDEX);
    const fresh = record({});
    expect(await refused(fresh)).to.equal('written');
    const { rows } = await db.raw<{ rows: { partition: string }[] }>('SELECT tableoid::regclass::text AS partition FROM qr_transactions WHERE id = ?', [fresh.transaction.id]);
    expect(rows[0]?.partition).to.equal(monthlyPartitionName('qr_transactions', utcMonth(now)));
    // The lines' foreign key to their sale holds across the partitions.
    const orphan = await db
      .raw(
        `INSERT INTO qr_concepts (transaction_id, transaction_created_at, position, description, amount, quantity, unit_price, sat_unit_key, sat_product_service_key, sat_tax_object_key)
            VALUES (?, ?, 9, 'x', 1, 1, 1, 'H87', '01010101', '02')`,
        [fresh.transaction.id, new Date(now.getTime() + 1)],
      )
      .then(
        () => 'written',
        (err: { code: string }) => err.code,
      );
    expect(orphan).to.equal('23503');
  });

  it('lets the old sales leave whole, with their lines and keys, once QR_RETENTION_MONTHS have passed their last month', async () => {
    const retention = { webhookDeliveryRetentionDays: 30, webhookEventRetentionDays: 31, idempotencyRetentionDays: 35, qrRetentionMonths: 63 };
    const legacyTo = (await partitionRanges(db, 'qr_transactions'))[0]!.to;
    // 62 months on, the old table's last month is still kept.
    await keepPartitionsJob(db, retention, new Date(utcMonth(legacyTo, 62).getTime() + 3_600_000));
    expect((await digest()).sales).to.equal(SALES + 1);
    const result = await keepPartitionsJob(db, retention, new Date(utcMonth(legacyTo, 63).getTime() + 3_600_000));
    expect(result.saleMonths).to.include({ dropped: 2, held: 0 });
    for (const table of ['qr_transactions', 'qr_concepts', 'qr_concept_taxes']) {
      expect((await partitionRanges(db, table)).map((r) => r.name)).to.not.include(`${table}_legacy`);
    }
    const left = await digest();
    expect(left).to.include({ sales: 0, concepts: 0, taxes: 0 });
    const side = await db.raw<{ rows: { keys: number; live: number }[] }>(
      'SELECT (SELECT count(*) FROM qr_sale_keys)::int AS keys, (SELECT count(*) FROM qr_live_sales)::int AS live',
    );
    expect(side.rows[0]).to.deep.equal({ keys: 0, live: 0 });
    // The invoices stay: they leave by their own five years.
    expect((await db('invoices').count<{ n: string }[]>({ n: '*' }))[0]?.n).to.equal(String(SALES / 10));
  });
});
