// A period with 10,000 unclaimed sales reported in global invoices: recording (lock, plan, write the
// invoices and mark the sales), then building, self-checking and sealing the two documents of 5,000
// concepts, then the fake PAC's checks of one of them. Part of `npm run bench` (its own database, after
// the HTTP runs); runnable alone: `npx tsx bench/global-invoice.ts`.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import knexFactory from 'knex';
import { startFakePacServer } from '../fakes/pac-server.js';
import { csdSigner } from '../shared/domain/cfdi/seal-cfdi.js';
import { knexConfig } from '../shared/platform/db.js';
import { globalPeriod } from '../shared/global-invoice/global-period.js';
import { sealInput } from '../shared/invoices/seal-sale.js';
import { storedDocument } from '../shared/invoices/stored-document.js';
import { swPacClient } from '../shared/adapters/pac/sw-pac-client.js';
import { recordGlobalInvoices } from '../shared/global-invoice/record-global-invoices.js';
import type { InvoiceRow } from '../shared/repositories/invoices.js';

export interface GlobalInvoiceFigures {
  sales: number;
  documents: number;
  recordMs: number;
  sealMsPerDocument: number;
  xmlBytes: number;
  fakePacMs: number;
}

const SALES = Number(process.env.BENCH_GLOBAL_SALES ?? 10_000);

/** SALES expired sales of a closed month for the merchant, written by the database itself (3 concepts, 2 taxes each). */
async function seedSales(db: Knex, merchantId: string, periodEnd: Date): Promise<void> {
  const tag = `g${Date.now()}`;
  await db.raw(
    `
    INSERT INTO qr_transactions (id, merchant_id, mode, store_uid, sale_id, idempotency_key, operation, amount, subtotal, currency,
      sat_payment_method, sat_payment_form, type_of_receipt, export_code, status, token, time_zone, issued_local, qr_png,
      created_at, updated_at, expires_at, global_periodicity, global_period_end)
    SELECT 'tra_' || qr_key_at(a.at), ?, 'development', 'bench', 'T-' || lpad(n::text, 6, '0'), '${tag}-' || n, 'INVOICE', 302.32, 262, 'MXN',
      'PUE', CASE WHEN n % 2 = 0 THEN '04' ELSE '01' END, 'I', '01', 'EXPIRED', qr_key_at(a.at), 'America/Mexico_City', '2026-10-15T12:00:00', '\\x00',
      a.at, a.at, ?::timestamptz - interval '1 minute', '04', ?
    FROM generate_series(1, ?) AS n, LATERAL (SELECT date_trunc('milliseconds', clock_timestamp()) AS at) a`,
    [merchantId, periodEnd, periodEnd, SALES],
  );
  // Each sale's id carries its created_at (its month's partition checks it): the lines find their sale by its key.
  await db.raw(
    `
    INSERT INTO qr_concepts (transaction_id, transaction_created_at, position, description, amount, quantity, unit_price, sat_unit_key, sat_product_service_key, sat_tax_object_key)
    SELECT t.id, t.created_at, c.position, c.description, c.amount, c.quantity, c.unit_price, c.unit, c.product, c.object
    FROM qr_transactions t, generate_series(1, ?) AS n, (VALUES (0, 'Gasolina regular', 215, 10, 21.5, 'LTR', '15101514', '02'), (1, 'Agua', 37, 2, 18.5, 'H87', '50202301', '02'),
      (2, 'Lavado', 10, 1, 10, 'E48', '01010101', '01')) AS c(position, description, amount, quantity, unit_price, unit, product, object)
    WHERE t.idempotency_key = '${tag}-' || n`,
    [SALES],
  );
  await db.raw(
    `
    INSERT INTO qr_concept_taxes (transaction_id, transaction_created_at, concept_position, position, type, tax, factor, rate, taxable_base, amount)
    SELECT t.id, t.created_at, x.concept_position, 0, 'Traslado', '002', 'Tasa', '0.160000', x.base, x.amount
    FROM qr_transactions t, generate_series(1, ?) AS n, (VALUES (0, 215, 34.4), (1, 37, 5.92)) AS x(concept_position, base, amount)
    WHERE t.idempotency_key = '${tag}-' || n`,
    [SALES],
  );
}

export async function benchGlobalInvoice(databaseUrl: string): Promise<GlobalInvoiceFigures> {
  const db = knexFactory(knexConfig(databaseUrl));
  try {
    await db.migrate.latest();
    const merchant = (await db('merchants').first('id')) as { id: string } | undefined;
    if (!merchant) throw new Error('the bench database has no merchant: run `npm run bench` once');
    const period = globalPeriod(new Date(Date.now() - 40 * 86_400_000), '04');
    await seedSales(db, merchant.id, period.end);
    let start = performance.now();
    const invoices: InvoiceRow[] = await recordGlobalInvoices(db, merchant.id, period.end, '04');
    const recordMs = Math.round(performance.now() - start);

    const dir = new URL('../data/sat/test-csd/', import.meta.url);
    const signer = csdSigner(readFileSync(new URL('EKU9003173C9.cer', dir)), readFileSync(new URL('EKU9003173C9.key', dir)), '12345678a');
    start = performance.now();
    const sealed = invoices.map((invoice, i) => {
      const result = sealInput(
        { ...storedDocument(invoice.document).input, folio: String(i + 1), issuedLocal: new Date(Date.now() - 6 * 3600_000).toISOString().slice(0, 19) },
        signer,
      );
      if (!result.ok) throw new Error(`global invoice refused by its own self-check: ${JSON.stringify(result.findings.slice(0, 3))}`);
      return result.xml;
    });
    const sealMsPerDocument = Math.round((performance.now() - start) / Math.max(1, sealed.length));

    const pac = await startFakePacServer();
    try {
      const client = swPacClient(pac.url, pac.token, 120_000, `${pac.url}/ConsultaCFDIService.svc`);
      start = performance.now();
      await client.stamp(sealed[0]!, {});
      const fakePacMs = Math.round(performance.now() - start);
      return { sales: SALES, documents: invoices.length, recordMs, sealMsPerDocument, xmlBytes: Buffer.byteLength(sealed[0]!), fakePacMs };
    } finally {
      await pac.close();
    }
  } finally {
    await db.destroy();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/autofactura_bench';
  benchGlobalInvoice(url).then(
    (f) => process.stdout.write(`${JSON.stringify(f)}\n`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
