import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { config } from '../../shared/platform/config.js';
import { ensureDatabase, knexConfig } from '../../shared/platform/db.js';
import { monthlyPartitionName, partitionRanges, utcMonth } from '../../shared/platform/monthly-partitions.js';
import { createSaleMonths, heldSaleMonths, youngCfdiOf } from '../../shared/repositories/sale-months.js';
import { keepPartitionsJob, type RetentionConfig } from '../../workers/keep-partitions.js';

const PER_MONTH = 20;
const RETENTION: RetentionConfig = { webhookDeliveryRetentionDays: 30, webhookEventRetentionDays: 31, idempotencyRetentionDays: 35, qrRetentionMonths: 63 };
const SALE_TABLES = ['qr_transactions', 'qr_concepts', 'qr_concept_taxes'] as const;

/**
 * The retention of the months of sales (issue #41): sales over six months, each month's CFDIs stamped at
 * chosen times, the keeper run when QR_RETENTION_MONTHS cuts after the fourth; then what stays and what went,
 * month by month, and that a CFDI inside its five years keeps its month whatever the setting. On a database
 * of its own, freshly migrated: the job is run years ahead of the clock here.
 */
describe('keep-partitions: retention of the months of sales, held by any CFDI inside its five years, without DELETE of sales', function () {
  this.timeout(120_000);
  const url = `${config().databaseUrl}_qr_retention`;
  let db: Knex;
  const month = (k: number) => utcMonth(new Date(), k);
  /** The run: 63 months after the start of month 4, so months 1 to 4 (and the empty ones before) are due. */
  const run = new Date(utcMonth(new Date(), 4 + 63).getTime() + 3_600_000);
  const fiveYearsBefore = (at: Date) => new Date(Date.UTC(at.getUTCFullYear() - 5, at.getUTCMonth(), at.getUTCDate(), at.getUTCHours()));

  before(async () => {
    await ensureDatabase(url);
    db = knexFactory(knexConfig(url));
    await db.raw('DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;');
    await db.migrate.latest();
    await createSaleMonths(db, month(1), month(6));
    await db.transaction(async (trx) => {
      // Made-up merchants: foreign keys and triggers off; the side tables' rows are written here as the sale's statement and trigger write them.
      await trx.raw('SET LOCAL session_replication_role = replica');
      for (let k = 1; k <= 6; k++) {
        await trx.raw(
          `INSERT INTO qr_transactions (id, merchant_id, mode, store_uid, sale_id, idempotency_key, operation, amount, subtotal, currency,
             sat_payment_method, sat_payment_form, type_of_receipt, export_code, status, token, short_code, time_zone, issued_local,
             created_at, updated_at, expires_at)
           SELECT 'tra_' || qr_key_at(at), 'mer_r', 'development', 's', 'R' || :k || '-' || n, 'k' || :k || '-' || n, 'INVOICE', 116, 100, 'MXN',
             'PUE', '04', 'I', '01', CASE WHEN n % 5 = 0 THEN 'INVOICED' ELSE 'EXPIRED' END, qr_key_at(at), 'C' || :k || '-' || n,
             'America/Mexico_City', '2026-01-01T12:00:00', at, at, at + interval '1 day'
           FROM generate_series(1, :per::int) AS n, LATERAL (SELECT :start::timestamptz + n * interval '1 hour' AS at) a`,
          { k, per: PER_MONTH, start: month(k) },
        );
      }
      await trx.raw(`INSERT INTO qr_concepts (transaction_id, transaction_created_at, position, description, amount, quantity, unit_price, sat_unit_key,
          sat_product_service_key, sat_tax_object_key) SELECT id, created_at, 0, 'x', 100, 1, 100, 'H87', '01010101', '02' FROM qr_transactions`);
      await trx.raw(`INSERT INTO qr_concept_taxes (transaction_id, transaction_created_at, concept_position, position, type, tax, factor, rate, taxable_base, amount)
          SELECT transaction_id, transaction_created_at, 0, 0, 'TRANSFERRED', '002', 'Tasa', '0.160000', 100, 16 FROM qr_concepts`);
      await trx.raw(`INSERT INTO qr_sale_keys (transaction_id, transaction_created_at, merchant_id, idempotency_key, short_code)
          SELECT id, created_at, merchant_id, idempotency_key, short_code FROM qr_transactions`);
      await trx.raw(`INSERT INTO qr_live_sales SELECT merchant_id, mode, sale_id, id, created_at FROM qr_transactions WHERE status = 'INVOICED'`);
      // Each invoiced sale's CFDI, stamped ten days after it: past its five years at the run.
      await trx.raw(`INSERT INTO invoices (id, transaction_id, merchant_id, status, folio, customer, stamped_at)
          SELECT 'cfd_' || sale_id, id, merchant_id, 'ACTIVE', row_number() OVER (ORDER BY id), '{}', created_at + interval '10 days'
          FROM qr_transactions WHERE status = 'INVOICED'`);
      await trx.raw(`INSERT INTO invoice_tickets (invoice_id, position, transaction_id, transaction_created_at)
          SELECT 'cfd_' || sale_id, 0, id, created_at FROM qr_transactions WHERE status = 'INVOICED'`);
      // Month 2: one of them stamped late, inside its five years at the run.
      await trx('invoices')
        .where({ id: 'cfd_R2-5' })
        .update({ stamped_at: new Date(fiveYearsBefore(run).getTime() + 10 * 86_400_000) });
      // Month 3: a global invoice reporting its unclaimed sales, stamped inside its five years.
      // Month 4: one stamped past them, and a refused confirmation (no CFDI) with no stamp.
      await trx.raw(
        `INSERT INTO invoices (id, transaction_id, merchant_id, status, folio, customer, stamped_at) VALUES
          ('cfd_global3', (SELECT id FROM qr_transactions WHERE sale_id = 'R3-1'), 'mer_r', 'ACTIVE', 1001, '{}', ?),
          ('cfd_global4', (SELECT id FROM qr_transactions WHERE sale_id = 'R4-1'), 'mer_r', 'ACTIVE', 1002, '{}', ?),
          ('cfd_refused4', (SELECT id FROM qr_transactions WHERE sale_id = 'R4-2'), 'mer_r', 'REFUSED', 1003, '{}', NULL)`,
        [new Date(fiveYearsBefore(run).getTime() + 86_400_000), month(5)],
      );
      await trx.raw(`INSERT INTO invoice_tickets (invoice_id, position, transaction_id, transaction_created_at)
          SELECT 'cfd_refused4', 0, id, created_at FROM qr_transactions WHERE sale_id = 'R4-2'`);
      for (const k of [3, 4]) {
        await trx.raw(`UPDATE qr_transactions SET global_invoice_id = ? WHERE sale_id LIKE ? AND status = 'EXPIRED'`, [`cfd_global${k}`, `R${k}-%`]);
      }
    });
  });
  after(() => db.destroy());

  /** Rows of `table` per month k (1 to 6) of the sales, by their partition key. */
  async function monthsHeld(table: string): Promise<number[]> {
    const column = table === 'qr_transactions' ? 'created_at' : 'transaction_created_at';
    const { rows } = await db.raw<{ rows: { k: number; n: number }[] }>(
      `SELECT (extract(year FROM ?? AT TIME ZONE 'UTC') * 12 + extract(month FROM ?? AT TIME ZONE 'UTC'))::int - ?::int AS k, count(*)::int AS n
       FROM ?? GROUP BY 1 ORDER BY 1`,
      [column, column, month(0).getUTCFullYear() * 12 + month(0).getUTCMonth() + 1, table],
    );
    for (const row of rows) expect(row.n, `${table} month ${row.k}`).to.equal(table === 'qr_live_sales' ? PER_MONTH / 5 : PER_MONTH);
    return rows.map((r) => r.k);
  }
  const invoicesDigest = async () => (await db.raw<{ rows: { d: string }[] }>(`SELECT md5(string_agg(i::text, ',' ORDER BY id)) AS d FROM invoices i`)).rows[0]!.d;

  it('drops the months whose CFDIs are all past five years, keeps the ones holding a younger CFDI, and never touches an invoice', async () => {
    for (const table of [...SALE_TABLES, 'qr_sale_keys']) expect(await monthsHeld(table), table).to.deep.equal([1, 2, 3, 4, 5, 6]);
    const invoicesBefore = await invoicesDigest();
    const sent: string[] = [];
    const onQuery = (query: { sql: string }) => sent.push(query.sql.toLowerCase());
    db.on('query', onQuery);
    let result: { saleMonths: { held: number } };
    try {
      result = await keepPartitionsJob(db, RETENTION, run);
    } finally {
      db.removeListener('query', onQuery);
    }
    expect(result.saleMonths.held).to.equal(2);
    for (const table of [...SALE_TABLES, 'qr_sale_keys']) expect(await monthsHeld(table), table).to.deep.equal([2, 3, 5, 6]);
    expect(await monthsHeld('qr_live_sales')).to.deep.equal([2, 3, 5, 6]);
    expect(await invoicesDigest()).to.equal(invoicesBefore);

    // The sales left as partitions, lines first; no DELETE of sales, lines or invoices (the side tables' rows of a month go in batches).
    const deleted = sent.filter((sql) => /^\s*delete\b/.test(sql)).map((sql) => /^\s*delete from "?(\w+)"?/.exec(sql)?.[1]);
    expect([...new Set(deleted)].sort()).to.deep.equal(['qr_live_sales', 'qr_sale_keys']);
    for (const k of [1, 4]) {
      const statements = SALE_TABLES.flatMap((table) => [
        `alter table "${table}" detach partition "${monthlyPartitionName(table, month(k))}"`,
        `drop table "${monthlyPartitionName(table, month(k))}"`,
      ]);
      expect(sent.filter((sql) => statements.includes(sql)).sort(), `month ${k}`).to.deep.equal([...statements].sort());
      expect(sent.indexOf(statements[4]!), 'the taxes before the sales').to.be.lessThan(sent.indexOf(statements[0]!));
    }
    for (const table of SALE_TABLES) {
      const names = (await partitionRanges(db, table)).map((r) => r.name);
      expect(names, table).to.not.include.members([`${table}_legacy`, ...[0, 1, 4].map((k) => monthlyPartitionName(table, month(k)))]);
      expect(names, table).to.include.members([2, 3, 5, 6].map((k) => monthlyPartitionName(table, month(k))));
      const { rows } = await db.raw<{ rows: { n: number }[] }>(`SELECT count(*)::int AS n FROM pg_class WHERE relname IN (?, ?)`, [
        monthlyPartitionName(table, month(1)),
        monthlyPartitionName(table, month(4)),
      ]);
      expect(rows[0]?.n, `${table}: dropped, not only detached`).to.equal(0);
    }

    // The held months are on the needs-attention list, each with the CFDI that holds it; a second run changes nothing.
    const held = await heldSaleMonths(db, RETENTION.qrRetentionMonths, run);
    expect(await Promise.all(held.map(async (m) => [m.range.name, await youngCfdiOf(db, m.range, run)]))).to.deep.equal([
      [monthlyPartitionName('qr_transactions', month(2)), 'cfd_R2-5'],
      [monthlyPartitionName('qr_transactions', month(3)), 'cfd_global3'],
    ]);
    // A month due for less than two of the job's runs is not listed yet: the job may not have reached it.
    expect(await heldSaleMonths(db, RETENTION.qrRetentionMonths, new Date(month(2 + 63).getTime() + 3_600_000))).to.deep.equal([]);
    expect((await keepPartitionsJob(db, RETENTION, run)).saleMonths).to.deep.equal({ created: 0, dropped: 0, held: 2 });
    expect(await monthsHeld('qr_transactions')).to.deep.equal([2, 3, 5, 6]);
  });
});
