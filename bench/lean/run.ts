// `npm run bench:lean`: only issue #31's comparison, quickly — POST /v1/qrs and GET /v1/qrs/{qrId} at
// BENCH_CONNECTIONS (50) for BENCH_SECONDS (5) each, first on the lean same-work server, then on the
// project (API and workers as processes: BENCH_API_PROCESSES API processes, one per core unless set, and one worker), and the table of both with their ratios. Same database, queue
// prefix and clean-up as `npm run bench`.
import { randomUUID } from 'node:crypto';
import { startFakePacServer } from '../../fakes/pac-server.js';
import { loadConfig } from '../../shared/platform/config.js';
import { saleBodies } from '../sale-bodies.js';
import { benchEnv, freshAccount, processCount, removeRunData, startApi, startProcess, stopProcesses, waitHealthy } from '../stack.js';
import { readCounts } from './counters.js';
import { cpuReader } from './cpu.js';
import { measureQrRoutes } from './load.js';
import { measureLean } from './measure.js';
import { leanEncoder } from './render.js';
import { leanComparisonLines } from './table.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/autofactura_bench';
const PORT = Number(process.env.BENCH_PORT ?? 3917);
const GET_TARGETS = Number(process.env.BENCH_LEAN_GET_TARGETS ?? 200);
const PROCESSES = { lean: processCount('BENCH_LEAN_PROCESSES'), api: processCount('BENCH_API_PROCESSES'), worker: 1 };

async function main(): Promise<void> {
  const env = benchEnv(DATABASE_URL, PORT);
  const account = await freshAccount(env);
  const body = saleBodies(account.storeUid);
  const headers = () => ({ 'X-API-Key': account.apiKey, 'X-TIME-ZONE': 'America/Mexico_City', 'idempotency-key': randomUUID() });
  const counts = () => readCounts(loadConfig(env).redisUrl, env.DATABASE_URL);
  const load = { headers, body, connections: CONNECTIONS, seconds: SECONDS, getTargets: GET_TARGETS, counts };
  const pac = await startFakePacServer();
  let workers: ReturnType<typeof startProcess> | undefined;
  let api: ReturnType<typeof startProcess> | undefined;
  try {
    // The lean server alone on the machine first; then the project's processes.
    const lean = await measureLean(env, PORT + 2, load);
    workers = startProcess('../bin/worker.ts', env, { PAC_BASE_URL: pac.url, PAC_TOKEN: pac.token, SAT_STATUS_URL: `${pac.url}/ConsultaCFDIService.svc` });
    api = startApi(env, PROCESSES.api);
    await waitHealthy(`http://127.0.0.1:${PORT}/health`);
    const cpu = cpuReader({ API: [api.pid ?? 0], worker: [workers.pid ?? 0] }, loadConfig(env).redisUrl, env.DATABASE_URL);
    const project = await measureQrRoutes({ ...load, cpu, baseUrl: `http://127.0.0.1:${PORT}` });
    const comparison = { connections: CONNECTIONS, seconds: SECONDS, encoder: leanEncoder(process.env.BENCH_LEAN_QR), processes: PROCESSES, lean, project };
    process.stdout.write(`${leanComparisonLines(comparison).join('\n')}\n${JSON.stringify(comparison)}\n`);
  } finally {
    await stopProcesses(api, workers);
    await pac.close();
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
