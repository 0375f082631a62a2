import { expect } from 'chai';
import type { Knex } from 'knex';
import { expireQrTransactions } from '../../shared/repositories/qr-transactions.js';
import { harness } from '../helpers/harness.js';

/** Every node of an EXPLAIN (FORMAT JSON) plan. */
function planNodes(node: { Plans?: unknown[] } & Record<string, unknown>): Record<string, unknown>[] {
  return [node, ...(node.Plans ?? []).flatMap((child) => planNodes(child as { Plans?: unknown[] }))];
}

const ROWS = 60_000;

describe("the expiry sweep's UPDATE … LIMIT 1000 on a table whose due rows are spread through it (issue #41)", () => {
  /**
   * Production's shape: most rows are history (finished, expiry long past), the open ones are a tenth, and
   * the due ones are a sliver of those, written at any time, so spread through the heap. The planner
   * multiplies "open" by "expiry past" and expects thousands of due rows; a sequential scan that stops at its
   * 1,000th then looks cheap, and in production it would read the history before finding them (the bench
   * saw that plan at 1,000,000 rows, cheap there only because its due rows were written first). The
   * statement must walk the open-expiry index whatever the estimate. The rows and the statistics live in a
   * transaction rolled back (ANALYZE is transactional).
   */
  it('walks the open-expiry index, never scanning the table, and expires the due QRs', async function () {
    this.timeout(120_000);
    const account = await harness().bootstrap();
    const run = `${process.pid}_${Date.now()}`;
    const db = harness().deps.db;
    const trx = await db.transaction();
    const sent: { sql: string; bindings: readonly unknown[] }[] = [];
    const onQuery = (query: { sql: string; bindings?: readonly unknown[] }) => {
      if (/update qr_transactions set status = 'EXPIRED'/i.test(query.sql)) sent.push({ sql: query.sql, bindings: query.bindings ?? [] });
    };
    let plan: Record<string, unknown>[];
    let expired: string[];
    // The sales are partitioned by month (issue #41): the rows are in one partition, read through its own
    // copy of the open-expiry index.
    let holding: string;
    let expiredSales: string[];
    let expiryIndexes: string[];
    try {
      await trx.raw(
        `INSERT INTO qr_transactions (id, merchant_id, mode, store_uid, sale_id, idempotency_key, operation, amount, subtotal, currency,
          sat_payment_method, sat_payment_form, type_of_receipt, export_code, status, token, short_code, time_zone, issued_local,
          created_at, updated_at, expires_at)
        SELECT 'tra_' || qr_key_at(a.at), :merchant, 'development', 'store-1', 'E-' || :run || '-' || n, md5(:run || 'k' || n),
          'INVOICE', 116, 100, 'MXN', 'PUE', '04', 'I', '01', s.status, qr_key_at(a.at),
          upper(substr(md5(:run || 's' || n), 1, 10)), 'America/Mexico_City', '2026-01-01T12:00:00',
          a.at, a.at, s.expires_at
        FROM generate_series(1, :rows::int) AS n,
          -- Keys carry their sale's instant (issue #41: a month's partition checks it).
          LATERAL (SELECT date_trunc('milliseconds', now() - interval '40 days') AS at) a,
          LATERAL (SELECT CASE
            WHEN n % 40 = 0 THEN 'PENDING'
            WHEN n % 10 = 0 THEN 'SCANNED'
            WHEN n % 3 = 0 THEN 'INVOICED' ELSE 'EXPIRED' END AS status,
            CASE
            WHEN n % 40 = 0 THEN now() - (n % 600) * interval '1 second'
            WHEN n % 10 = 0 THEN now() + (n % 30 + 1) * interval '1 day'
            ELSE now() - (n % 365 + 1) * interval '1 day' END AS expires_at) s`,
        { run, merchant: account.merchantId, rows: ROWS },
      );
      await trx.raw('ANALYZE qr_transactions');
      db.on('query', onQuery);
      try {
        expired = await expireQrTransactions(trx, { limit: 1000 });
      } finally {
        db.removeListener('query', onQuery);
      }
      expect(sent, 'the UPDATE the repository sent').to.have.length(1);
      // The driver's text numbers its parameters ($1…); knex.raw takes them positionally.
      const { sql, bindings } = sent[0]!;
      const positional = [...sql.matchAll(/\$(\d+)/g)].map((m) => bindings[Number(m[1]) - 1] as Knex.RawBinding);
      const explained = await trx.raw<{ rows: { 'QUERY PLAN': [{ Plan: { Plans?: unknown[] } }] }[] }>(`EXPLAIN (FORMAT JSON) ${sql.replace(/\$\d+/g, '?')}`, positional);
      plan = planNodes(explained.rows[0]!['QUERY PLAN'][0].Plan);
      expiredSales = (await trx('qr_transactions').whereIn('id', expired!).pluck('sale_id')) as string[];
      holding = (await trx.raw<{ rows: { name: string }[] }>(`SELECT tableoid::regclass::text AS name FROM qr_transactions WHERE sale_id = ?`, [`E-${run}-40`])).rows[0]!.name;
      expiryIndexes = (
        await trx.raw<{ rows: { name: string }[] }>(
          `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'qr_transactions_open_expiry_idx'::regclass`,
        )
      ).rows.map((r) => r.name);
    } finally {
      await trx.rollback();
    }
    const onSales = plan.filter((n) => n['Relation Name'] === holding);
    const shape = onSales.map((n) => `${String(n['Node Type'])} ${typeof n['Index Name'] === 'string' ? n['Index Name'] : ''}`).join(', ');
    expect(
      onSales.map((n) => n['Node Type']),
      shape,
    ).to.not.include('Seq Scan');
    expect(
      onSales.map((n) => n['Node Type']),
      shape,
    ).to.not.include('Bitmap Heap Scan');
    expect(
      onSales.some((n) => n['Node Type'] === 'Index Scan' && expiryIndexes.includes(String(n['Index Name']))),
      shape,
    ).to.equal(true);
    // ROWS / 40 PENDING QRs fell due in the last ten minutes: the batch takes 1,000 of them, none of the others.
    expect(expired).to.have.length(1000);
    expect(expiredSales.every((sale) => Number(sale.split('-').pop()) % 40 === 0)).to.equal(true);
  });
});
