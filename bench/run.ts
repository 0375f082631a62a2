// `npm run bench`: POST /v1/qrs over HTTP on loopback with API and workers running (separate processes,
// as in production), against the bare ceiling of a Koa route that only parses and validates the same
// body and, with GET /v1/qrs/{qrId}, against the lean same-work server (bench/lean/, issue #31); plus the
// QR render alone. Uses its own database and queue prefix; prints a table and JSON.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { loadConfig } from '../shared/platform/config.js';
import knexFactory, { type Knex } from 'knex';
import type { FakePacServer } from '../fakes/pac-server.js';
import { knexConfig } from '../shared/platform/db.js';
import { saleBodies } from './sale-bodies.js';
import { benchRenderQr } from './render-qr.js';
import { benchCfdiSteps } from './cfdi-steps.js';
import { benchStampEndToEnd } from './stamp-e2e.js';
import { benchCancelEndToEnd } from './cancel-e2e.js';
import { benchGlobalInvoice } from './global-invoice.js';
import { benchConnectionSweep, sweepConnections } from './connections.js';
import { connectionsChartSvg } from './chart.js';
import { benchPendingQrs } from './pending-qrs.js';
import { machine, printFigures } from './figures.js';
import { benchEnv, freshAccount, processCount, removeRunData, startApi, startBenchParties, startProcess, stopProcesses, waitHealthy, type BenchEnv } from './stack.js';
import { readCounts } from './lean/counters.js';
import { measureQrRoutes, postLoad } from './lean/load.js';
import { cpuReader, observerDatabaseUrl } from './lean/cpu.js';
import { measureLean } from './lean/measure.js';
import { leanEncoder } from './lean/render.js';
import { leanComparisonLines } from './lean/table.js';
import { measureStamping, stampingLine, type StampingRun } from './stamping.js';
import { benchSaleCommands, saleCommandLines } from './sale-commands.js';
import { benchClusterShares, clusterShareLines } from './cluster-shares.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/autofactura_bench';
const PORT = Number(process.env.BENCH_PORT ?? 3917);
const STAMP_COUNT = Number(process.env.BENCH_STAMPS ?? 100);
// Buyers confirming at once; the fake PAC runs one xmllint per stamp, which bounds what 2 cores can do.
const STAMP_CONCURRENCY = Number(process.env.BENCH_STAMP_CONCURRENCY ?? 10);
/** Confirmations of the runs whose PAC does not validate: enough for a few seconds at the target rate. */
const BARE_STAMP_COUNT = Number(process.env.BENCH_BARE_STAMPS ?? 1000);
const BARE_STAMP_CONCURRENCY = Number(process.env.BENCH_BARE_STAMP_CONCURRENCY ?? 50);
// The throughput/latency curve (BENCH_SWEEP_CONNECTIONS, default 1,5,10,25,50,100) and its chart.
const SWEEP_SECONDS = Number(process.env.BENCH_SWEEP_SECONDS ?? 5);
const CHART = process.env.BENCH_CHART ?? new URL('../docs/performance.svg', import.meta.url).pathname;
// Pending QRs (rows + delayed expiry jobs) for Redis memory per expiry and GET /v1/qrs/{qrId} at scale.
const PENDING = Number(process.env.BENCH_PENDING ?? 100_000);
/** QRs each server makes before its GET run (each GET asks for a random one): issue #31's comparison. */
const LEAN_GET_TARGETS = Number(process.env.BENCH_LEAN_GET_TARGETS ?? 200);
/** The project's API processes (one per core unless set), as the lean server runs one per core. */
const API_PROCESSES = processCount('BENCH_API_PROCESSES');
const env = benchEnv(DATABASE_URL, PORT);
const start = (script: string, extraEnv: BenchEnv = {}) => startProcess(script, env, extraEnv);

const load = (url: string, headers: () => Record<string, string>, body: () => string, connections = CONNECTIONS) => postLoad(url, headers, body, connections, DURATION);

async function main(): Promise<void> {
  const account = await freshAccount(env);
  if (process.env.BENCH_ONLY === 'stamping') return onlyStamping(account);
  if (process.env.BENCH_ONLY === 'routes') return onlyRoutes(account);
  if (process.env.BENCH_ONLY === 'cluster') return onlyCluster(account);

  const routeLoad = routeLoadOf(account);
  const { headers, body } = routeLoad;
  // Issue #31's yardstick: the same work done leanly, alone on the machine, under the load the project gets below.
  const lean = await measureLean(env, PORT + 2, routeLoad);

  const bare = start('./bare-server.ts', { PORT: String(PORT + 1) });
  await new Promise((r) => bare.once('message', r));
  const ceiling = await load(`http://127.0.0.1:${PORT + 1}/v1/qrs`, () => ({}), body);
  bare.kill('SIGTERM');

  // The fakes in this process (the stamping run changes the PAC's latency); API and workers reach them over HTTP.
  const parties = await startBenchParties();
  const { pac } = parties;
  const workers = start('../bin/worker.ts', parties.env);
  const api = startApi(env, API_PROCESSES, parties.env);
  try {
    await waitHealthy(`http://127.0.0.1:${PORT}/health`);
    const { cpu, comparison: leanComparison } = await compareWithLean(routeLoad, lean, api, workers);
    const qrs = leanComparison.project.post;
    // Latency below saturation: 10 connections (autocannon's fixed-rate mode sends in bursts).
    const light = await load(`http://127.0.0.1:${PORT}/v1/qrs`, headers, body, 10);
    const sweep = await benchConnectionSweep({ url: `http://127.0.0.1:${PORT}/v1/qrs`, headers, body, connections: sweepConnections(), seconds: SWEEP_SECONDS });
    const stampDb = knexFactory(knexConfig(observerDatabaseUrl(DATABASE_URL)));
    const stampRun = (latencyMs: number, count: number, validates = true, concurrency = STAMP_CONCURRENCY) =>
      benchStampEndToEnd({
        baseUrl: `http://127.0.0.1:${PORT}`,
        db: stampDb,
        pac,
        apiKey: account.apiKey,
        storeUid: account.storeUid,
        count,
        concurrency,
        latencyMs,
        validates,
      });
    await stampRun(0, 10); // warm-up: the worker's CSD, the PAC's schema cache, JIT
    // Each with its CPU, statements (BENCH_STATEMENTS=1) and Redis commands per CFDI (bench/stamping.ts).
    const measured = stampingRun(account, stampDb, pac, api, workers, cpu);
    const stampFast = await measureStamping(measured, 0, STAMP_COUNT, true, STAMP_CONCURRENCY);
    // Our side of stamping alone: a PAC that answers at once without its checks, then one taking 300 ms.
    const stampBare = await measureStamping(measured, 0, BARE_STAMP_COUNT, false, BARE_STAMP_CONCURRENCY);
    const stampSlow = await measureStamping(measured, 300, BARE_STAMP_COUNT, false, BARE_STAMP_CONCURRENCY);
    pac.latencyMs = 0;
    pac.validates = true;
    const cancels = await benchCancelEndToEnd({ baseUrl: `http://127.0.0.1:${PORT}`, db: stampDb, apiKey: account.apiKey, count: STAMP_COUNT, concurrency: STAMP_CONCURRENCY });
    const pending = await benchPendingQrs({
      baseUrl: `http://127.0.0.1:${PORT}`,
      db: stampDb,
      redisUrl: loadConfig(env).redisUrl,
      queuePrefix: env.QUEUE_PREFIX,
      config: loadConfig(env),
      apiKey: account.apiKey,
      merchantId: account.merchantId,
      count: PENDING,
      seconds: SWEEP_SECONDS,
      connections: CONNECTIONS,
    });
    await stampDb.destroy();
    api.kill('SIGTERM');
    workers.kill('SIGTERM');
    // Redis commands per sale by process layout and concurrency, on a Redis of their own (issue #40).
    const saleCommands = await benchSaleCommands(env, account);
    // The same sales spread over a Redis Cluster's three masters (issue #40): each one's share.
    const clusterShares = await benchClusterShares({ ...env, ...parties.env }, account);
    const render = await benchRenderQr({ seconds: 3 });
    const cfdi = await benchCfdiSteps();
    const global = await benchGlobalInvoice(DATABASE_URL);
    const ratio = Math.round((qrs.requestsPerSecond / ceiling.requestsPerSecond) * 1000) / 10;
    const rows = [
      ['bare Koa parse+validate (ceiling)', `${ceiling.requestsPerSecond}/s`, `${ceiling.p50} ms`, `${ceiling.p99} ms`, `${ceiling.non2xx}`],
      ['POST /v1/qrs (API + workers)', `${qrs.requestsPerSecond}/s`, `${qrs.p50} ms`, `${qrs.p99} ms`, `${qrs.non2xx}`],
      ['POST /v1/qrs, 10 connections', `${light.requestsPerSecond}/s`, `${light.p50} ms`, `${light.p99} ms`, `${light.non2xx}`],
    ];
    process.stdout.write(`\n${CONNECTIONS} connections, ${DURATION} s each, loopback, ${new Date().toISOString()}\n`);
    process.stdout.write(`${'route'.padEnd(38)}${'rate'.padStart(10)}${'p50'.padStart(10)}${'p99'.padStart(10)}${'non-2xx'.padStart(10)}\n`);
    for (const r of rows) process.stdout.write(`${r[0]!.padEnd(38)}${r[1]!.padStart(10)}${r[2]!.padStart(10)}${r[3]!.padStart(10)}${r[4]!.padStart(10)}\n`);
    process.stdout.write(`POST /v1/qrs / ceiling: ${ratio} % (target >= 30 %), p99 ${qrs.p99} ms (target < 100 ms)\n`);
    process.stdout.write(
      `QR render alone: ${render.pngPerSecond} PNG/s, matrix only ${render.matrixOnlyPerSecond}/s (qrcode.toDataURL: ${render.baselineToDataUrlPerSecond}/s, qrcode.create: ${render.baselineCreatePerSecond}/s)\n`,
    );
    process.stdout.write(
      `CFDI steps per document (ms): build ${cfdi.buildMs}, cadena ${cfdi.cadenaMs}, seal ${cfdi.sealMs}, fake PAC ${cfdi.pacMs} (with 300 ms latency: ${cfdi.pacSlowMs}), PDF ${cfdi.pdfMs} (${cfdi.pdfPerSecond} PDF/s)\n`,
    );
    for (const s of [stampFast, stampBare, stampSlow]) process.stdout.write(`${stampingLine(s)}\n`);
    process.stdout.write(
      `Cancellation end to end: ${cancels.invoices} DELETEs → CANCELLED in ${cancels.seconds} s = ${cancels.perSecond}/s (p50 ${cancels.p50Ms} ms, p99 ${cancels.p99Ms} ms)\n`,
    );
    process.stdout.write(
      `Global invoice of ${global.sales} unclaimed sales: recorded in ${global.recordMs} ms as ${global.documents} documents; build + self-check + seal ${global.sealMsPerDocument} ms each (${Math.round(global.xmlBytes / 1024)} KB); fake PAC checks ${global.fakePacMs} ms\n`,
    );
    const host = machine();
    await writeFile(
      CHART,
      connectionsChartSvg(sweep, {
        ceilingPerSecond: ceiling.requestsPerSecond,
        caption: `${host.cores} cores (${host.cpu}), ${SWEEP_SECONDS} s per point, ${new Date().toISOString().slice(0, 10)}, load average ${host.loadAtStart[0]} at start`,
      }),
    );
    printFigures({ connections: CONNECTIONS, ceiling, qrs, ratioPercent: ratio, render, stampFast, stampBare, stampSlow, cfdi, pending, sweep, chart: CHART });
    process.stdout.write(`${leanComparisonLines(leanComparison).join('\n')}\n\n`);
    process.stdout.write(`${saleCommands.flatMap((l) => saleCommandLines(`${l.apis} API + ${l.workers} worker`, l.runs)).join('\n')}\n\n`);
    process.stdout.write(`${clusterShareLines(clusterShares).join('\n')}\n\n`);
    process.stdout.write(
      `${JSON.stringify({ machine: host, ceiling, qrs, light, ratioPercent: ratio, lean: leanComparison, saleCommands, clusterShares, render, cfdi, stampFast, stampBare, stampSlow, cancels, global, sweep, pending })}\n`,
    );
  } finally {
    await stopProcesses(api, workers);
    await parties.close();
    await removeRunData(env);
  }
}

/** The sales both servers get in issue #31's comparison: the account's, CONNECTIONS at once for DURATION seconds. */
function routeLoadOf(account: Awaited<ReturnType<typeof freshAccount>>) {
  const body = saleBodies(account.storeUid);
  const headers = () => ({ 'X-API-Key': account.apiKey, 'X-TIME-ZONE': 'America/Mexico_City', 'idempotency-key': randomUUID() });
  const counts = () => readCounts(loadConfig(env).redisUrl, env.DATABASE_URL);
  return { headers, body, connections: CONNECTIONS, seconds: DURATION, getTargets: LEAN_GET_TARGETS, counts };
}

/** The project's POST and GET (warm-up, JIT, pools, catalogs first) measured exactly as the lean server was, with its CPU reader. */
async function compareWithLean(routeLoad: ReturnType<typeof routeLoadOf>, lean: Awaited<ReturnType<typeof measureLean>>, api: ChildProcess, workers: ChildProcess) {
  const cpu = cpuReader({ API: [api.pid ?? 0], worker: [workers.pid ?? 0] }, loadConfig(env).redisUrl, env.DATABASE_URL);
  const project = await measureQrRoutes({ ...routeLoad, cpu, baseUrl: `http://127.0.0.1:${PORT}` });
  const comparison = {
    connections: CONNECTIONS,
    seconds: DURATION,
    encoder: leanEncoder(process.env.BENCH_LEAN_QR),
    processes: { lean: processCount('BENCH_LEAN_PROCESSES'), api: API_PROCESSES, worker: 1 },
    lean,
    project,
  };
  return { cpu, comparison };
}

/** BENCH_ONLY=routes: the lean server, then the project, on `POST /v1/qrs` and `GET /v1/qrs/{qrId}` alone (the comparison's table). */
async function onlyRoutes(account: Awaited<ReturnType<typeof freshAccount>>): Promise<void> {
  const routeLoad = routeLoadOf(account);
  const lean = await measureLean(env, PORT + 2, routeLoad);
  const parties = await startBenchParties();
  const workers = start('../bin/worker.ts', parties.env);
  const api = startApi(env, API_PROCESSES, parties.env);
  try {
    await waitHealthy(`http://127.0.0.1:${PORT}/health`);
    const { comparison } = await compareWithLean(routeLoad, lean, api, workers);
    process.stdout.write(
      `\n${new Date().toISOString()}, load average ${machine().loadAtStart.join(' ')}\n${leanComparisonLines(comparison).join('\n')}\n${JSON.stringify(comparison)}\n`,
    );
  } finally {
    await stopProcesses(api, workers);
    await parties.close();
    await removeRunData(env);
  }
}

/** BENCH_ONLY=cluster: the per-master shares on a Redis Cluster of the run's own (bench/cluster-shares.ts). */
async function onlyCluster(account: Awaited<ReturnType<typeof freshAccount>>): Promise<void> {
  const parties = await startBenchParties();
  try {
    const shares = await benchClusterShares({ ...env, ...parties.env }, account);
    process.stdout.write(`\n${new Date().toISOString()}, load average ${machine().loadAtStart.join(' ')}\n${clusterShareLines(shares).join('\n')}\n${JSON.stringify(shares)}\n`);
  } finally {
    await parties.close();
    await removeRunData(env);
  }
}

/** What measureStamping needs of the run: the account's sales through the API on PORT, its processes' CPU. */
function stampingRun(
  account: Awaited<ReturnType<typeof freshAccount>>,
  db: Knex,
  pac: FakePacServer,
  api: ChildProcess,
  workers: ChildProcess,
  cpu: StampingRun['cpu'],
): StampingRun {
  const { redisUrl } = loadConfig(env);
  return {
    baseUrl: `http://127.0.0.1:${PORT}`,
    db,
    pac,
    apiKey: account.apiKey,
    storeUid: account.storeUid,
    redisUrl,
    databaseUrl: DATABASE_URL,
    processes: { API: api, worker: workers },
    cpu,
  };
}

/** BENCH_ONLY=stamping: the stamping runs alone, with CPU, statements and Redis commands per CFDI. */
async function onlyStamping(account: Awaited<ReturnType<typeof freshAccount>>): Promise<void> {
  const parties = await startBenchParties();
  const { pac } = parties;
  const workers = start('../bin/worker.ts', parties.env);
  const api = start('../bin/web.ts', parties.env);
  const db = knexFactory(knexConfig(observerDatabaseUrl(DATABASE_URL)));
  try {
    await waitHealthy(`http://127.0.0.1:${PORT}/health`);
    const run = stampingRun(account, db, pac, api, workers, cpuReader({ API: [api.pid ?? 0], worker: [workers.pid ?? 0] }, loadConfig(env).redisUrl, DATABASE_URL));
    await measureStamping(run, 0, 20, true, STAMP_CONCURRENCY); // warm-up: the worker's CSD, JIT
    const runs = [
      await measureStamping(run, 0, BARE_STAMP_COUNT, false, BARE_STAMP_CONCURRENCY),
      await measureStamping(run, 300, BARE_STAMP_COUNT, false, BARE_STAMP_CONCURRENCY),
      await measureStamping(run, 0, STAMP_COUNT, true, STAMP_CONCURRENCY),
    ];
    process.stdout.write(`\n${new Date().toISOString()}, load average ${machine().loadAtStart.join(' ')}\n${runs.map(stampingLine).join('\n')}\n${JSON.stringify(runs)}\n`);
  } finally {
    await db.destroy();
    await stopProcesses(api, workers);
    await parties.close();
    await removeRunData(env);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
