// The month's XMLs in one download (issue #32) at scale: BENCH_ZIP_INVOICES (100,000) stamped CFDIs of one
// merchant, written by the database itself, each pointing to a stored 5 KB stamped XML (one file shared by
// all: the store's read is a disk read either way, and writing 100,000 files first would measure the setup),
// then the export job's own code (shared/books/invoice-zip.ts) builds their ZIP on the disk store. Prints the
// time, the ZIP's size, the process's peak RSS and heap (sampled every 20 ms) and Info-ZIP's verdict.
// Runnable alone, on a database it may wipe: `DATABASE_URL=… npx tsx bench/invoice-zip.ts`.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import knexFactory from 'knex';
import { buildInvoiceZip } from '../shared/books/invoice-zip.js';
import { knexConfig } from '../shared/platform/db.js';
import { newId } from '../shared/platform/ids.js';
import { diskFileStore } from '../shared/platform/storage/file-store.js';
import { insertInvoiceExport } from '../shared/repositories/invoice-exports.js';
import { satCatalogs } from '../shared/sat/catalogs.js';
import { benchEnv, freshAccount } from './stack.js';

const INVOICES = Number(process.env.BENCH_ZIP_INVOICES ?? 100_000);
const run = promisify(execFile);

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL: a database this bench may wipe');
  const account = await freshAccount(benchEnv(url, 0));
  const db = knexFactory(knexConfig(url));
  const dir = await mkdtemp(join(tmpdir(), 'bench-zip-'));
  try {
    const files = diskFileStore(dir);
    const xml = readFileSync(new URL('../test/fixtures/cfdi/stamped-sample.xml', import.meta.url));
    const xmlKey = await files.put('invoices', { contentType: 'application/xml', data: xml }, 'xml');
    const seedStart = Date.now();
    await db.raw(
      `INSERT INTO invoices (id, merchant_id, status, cfdi_type, series, folio, customer, document, uuid, xml_file_key, subtotal, total, stamped_at, email_sent_at, created_at)
       SELECT 'cfd_bench' || n, ?, 'ACTIVE', 'I', 'A', n, '{"rfc":"URE180429TM6","name":"UNIVERSIDAD ROBOTICA ESPAÑOLA"}'::jsonb, '{}'::jsonb,
         upper(md5(n::text)::uuid::text), ?, 100, 116, now(), now(), timestamptz '2026-11-01 12:00Z' + n * interval '20 seconds'
       FROM generate_series(1, ?) AS n`,
      [account.merchantId, xmlKey, INVOICES],
    );
    await db.raw('ANALYZE invoices');
    const seedMs = Date.now() - seedStart;
    const { row } = await insertInvoiceExport(db, {
      id: newId('invoiceExport'),
      accountId: account.accountId,
      reader: { merchantId: account.merchantId },
      scope: { merchantIds: [account.merchantId] },
      filters: { statuses: ['ACTIVE'] },
      includePdf: false,
      idempotencyKey: undefined,
      fingerprint: 'bench',
      expiresAt: new Date(Date.now() + 86_400_000),
    });
    global.gc?.();
    const base = process.memoryUsage();
    let peakRss = base.rss;
    let peakHeap = base.heapUsed;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peakRss = Math.max(peakRss, m.rss);
      peakHeap = Math.max(peakHeap, m.heapUsed);
    }, 20);
    const start = Date.now();
    const result = await buildInvoiceZip({ db, files, catalogs: satCatalogs(), publicBaseUrl: 'https://factura.example.test' }, row.id);
    const buildMs = Date.now() - start;
    clearInterval(sampler);
    if (result.outcome !== 'ready') throw new Error(`export not built: ${result.outcome}`);
    const stored = (await db('invoice_exports').where({ id: row.id }).first('file_key')) as { file_key: string };
    const zipPath = join(dir, stored.file_key);
    const test = await run('unzip', ['-tq', zipPath], { maxBuffer: 64 << 20 }).then(
      (r) => r.stdout.trim(),
      (e: Error) => `FAILED: ${e.message.slice(0, 200)}`,
    );
    const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;
    const figures = {
      invoices: INVOICES,
      seed_ms: seedMs,
      build_ms: buildMs,
      per_second: Math.round(INVOICES / (buildMs / 1000)),
      zip_size: mb(result.bytes),
      xml_bytes_each: xml.length,
      rss_before: mb(base.rss),
      rss_peak: mb(peakRss),
      rss_growth: mb(peakRss - base.rss),
      heap_before: mb(base.heapUsed),
      heap_peak: mb(peakHeap),
      unzip_t: test,
    };
    console.log(JSON.stringify(figures, null, 2));
    await writeFile(join(dir, 'figures.json'), JSON.stringify(figures));
  } finally {
    await db.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
