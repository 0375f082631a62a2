// `npm run bench:books-export`: the CSV export of a period (issue #32) in bounded memory whatever its size.
// For each of BENCH_EXPORT_ROWS (default 10,000 and 1,000,000) stamped CFDIs of one merchant, written by
// PostgreSQL itself (each with the stamped sample as its sealed XML, so every row is parsed as a real one;
// one in ten cancelled), a fresh API process (bin/web.ts, as in production) streams
// GET /v1/qrs/invoices/export?format=csv to this process, which counts the bytes and lines as they arrive.
// Prints per size: the time to the first byte and to the last, the API process's CPU ms (utime + stime from
// /proc) per 1,000 rows, its resident memory before the request, its peak during the export (VmRSS sampled
// every 50 ms) and its lifetime peak (VmHWM). Bounded memory: the peaks are about the same at every size.
// BENCH_EXPORT_HEAP_MB caps the API's V8 old space (--max-old-space-size): an export that held its rows
// would die of it, while RSS alone also shows the collector's slack (it grows the heap when nothing presses it).
// BENCH_DATABASE_URL: a database this bench wipes.
import { readFileSync } from 'node:fs';
import knexFactory from 'knex';
import { knexConfig } from '../shared/platform/db.js';
import { machine } from './figures.js';
import { benchEnv, freshAccount, removeRunData, startProcess, stopProcesses, waitHealthy } from './stack.js';

const SIZES = (process.env.BENCH_EXPORT_ROWS ?? '10000,1000000').split(',').map(Number);
const PORT = Number(process.env.BENCH_PORT ?? 3931);
const env = benchEnv(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/autofactura_bench', PORT);
const HEAP_MB = process.env.BENCH_EXPORT_HEAP_MB;
const CLOCK_TICKS_PER_MS = 100 / 1000; // USER_HZ is 100 on Linux

/** A figure of /proc/<pid>/status in MB (VmRSS: now; VmHWM: the process's peak so far). */
function statusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const kb = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Math.round(Number(kb) / 102.4) / 10;
}

/** The process's CPU time so far (user + system), in ms. */
function cpuMs(pid: number): number {
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_MS;
}

/** N stamped CFDIs of the merchant, newest 20 s apart, one in ten cancelled, written in one statement. */
async function seed(url: string, merchantId: string, rows: number): Promise<number> {
  const db = knexFactory(knexConfig(url));
  try {
    const xml = readFileSync(new URL('../test/fixtures/cfdi/stamped-sample.xml', import.meta.url), 'utf8');
    const start = Date.now();
    await db.raw(
      `INSERT INTO invoices (id, merchant_id, status, cfdi_type, series, folio, customer, document, uuid, sealed_xml, subtotal, total, stamped_at, email_sent_at, created_at)
       SELECT 'cfd_bench' || n, ?, CASE WHEN n % 10 = 0 THEN 'CANCELLED' ELSE 'ACTIVE' END, 'I', 'A', n,
         '{"rfc":"URE180429TM6","name":"UNIVERSIDAD ROBOTICA ESPAÑOLA"}'::jsonb, '{}'::jsonb,
         upper(md5(n::text)::uuid::text), ?, 100, 116, now(), now(), timestamptz '2026-01-01 12:00Z' + n * interval '20 seconds'
       FROM generate_series(1, ?) AS n`,
      [merchantId, xml, rows],
    );
    await db.raw('ANALYZE invoices');
    return Date.now() - start;
  } finally {
    await db.destroy();
  }
}

async function exportOnce(rows: number): Promise<Record<string, unknown>> {
  const account = await freshAccount(env);
  const seedMs = await seed(env.DATABASE_URL, account.merchantId, rows);
  const api = startProcess('../bin/web.ts', env, HEAP_MB ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=${HEAP_MB}`.trim() } : {});
  try {
    await waitHealthy(`http://127.0.0.1:${PORT}/health`);
    const pid = api.pid!;
    const rssBefore = statusMb(pid, 'VmRSS');
    const hwmBefore = statusMb(pid, 'VmHWM');
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, statusMb(pid, 'VmRSS'))), 50);
    const cpuBefore = cpuMs(pid);
    const start = performance.now();
    const res = await fetch(`http://127.0.0.1:${PORT}/v1/qrs/invoices/export?format=csv&status=ACTIVE,CANCELLED`, { headers: { 'X-API-Key': account.apiKey } });
    if (res.status !== 200 || !res.body) throw new Error(`export answered ${res.status}`);
    let firstByteMs = 0;
    let bytes = 0;
    let lines = 0;
    for await (const chunk of res.body) {
      if (bytes === 0) firstByteMs = performance.now() - start;
      bytes += chunk.length;
      for (const byte of chunk) if (byte === 10) lines++;
    }
    const totalMs = performance.now() - start;
    clearInterval(sampler);
    const cpu = cpuMs(pid) - cpuBefore;
    rssPeak = Math.max(rssPeak, statusMb(pid, 'VmRSS'));
    if (lines !== rows + 1) throw new Error(`the CSV has ${lines} lines, expected ${rows} rows and a header`);
    return {
      rows,
      api_old_space_cap_mb: HEAP_MB ? Number(HEAP_MB) : null,
      seed_ms: seedMs,
      csv_mb: Math.round(bytes / 104857.6) / 10,
      first_byte_ms: Math.round(firstByteMs),
      total_ms: Math.round(totalMs),
      rows_per_second: Math.round(rows / (totalMs / 1000)),
      api_cpu_ms_per_1000_rows: Math.round((cpu / rows) * 1000 * 10) / 10,
      api_rss_before_mb: rssBefore,
      api_rss_peak_during_mb: rssPeak,
      api_vmhwm_before_mb: hwmBefore,
      api_vmhwm_after_mb: statusMb(pid, 'VmHWM'),
    };
  } finally {
    await stopProcesses(api);
  }
}

async function main(): Promise<void> {
  const runs: Record<string, unknown>[] = [];
  try {
    for (const rows of SIZES) {
      const figures = await exportOnce(rows);
      console.log(JSON.stringify(figures));
      runs.push(figures);
    }
  } finally {
    await removeRunData(env);
  }
  console.log(JSON.stringify({ machine: machine(), runs }, null, 2));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
