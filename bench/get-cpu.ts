// `npx tsx bench/get-cpu.ts`: GET /v1/qrs/{qrId} alone on the project, for the CPU it costs per GET by
// process (issue #31's GET round). BENCH_API_PROCESSES API processes (bench/stack.ts's startApi) and one
// worker; 100 QRs made through POST; a 3 s GET warm-up, then BENCH_SECONDS (8) of GET at BENCH_CONNECTIONS
// (50), each asking for a random one of them. With BENCH_PROFILE=1 the processes' V8 profiles cover the
// GETs and little else. Prints one JSON line: rate, answers and CPU ms per GET for the API, Redis and
// PostgreSQL (bench/lean/cpu.ts).
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { loadConfig } from '../shared/platform/config.js';
import { saleBodies } from './sale-bodies.js';
import { cpuPerSale, cpuReader } from './lean/cpu.js';
import { benchEnv, freshAccount, processCount, removeRunData, startApi, startProcess, stopProcesses, waitHealthy } from './stack.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/autofactura_bench';
const PORT = Number(process.env.BENCH_PORT ?? 3917);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const API_PROCESSES = processCount('BENCH_API_PROCESSES');

async function main(): Promise<void> {
  const env = benchEnv(DATABASE_URL, PORT);
  const account = await freshAccount(env);
  const worker = startProcess('../bin/worker.ts', env);
  const api = startApi(env, API_PROCESSES);
  try {
    await waitHealthy(`http://127.0.0.1:${PORT}/health`);
    const headers = { 'X-API-Key': account.apiKey, 'X-TIME-ZONE': 'America/Mexico_City' };
    const ids: string[] = [];
    const bodies = saleBodies(account.storeUid);
    for (let i = 0; i < 100; i++) {
      const body = bodies();
      const res = await fetch(`http://127.0.0.1:${PORT}/v1/qrs`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': randomUUID(), 'content-type': 'application/json' },
        body,
      });
      if (res.status !== 201) throw new Error(`POST /v1/qrs answered ${res.status}: ${await res.text()}`);
      ids.push(((await res.json()) as { qr_id: string }).qr_id);
    }
    const run = (seconds: number) =>
      autocannon({
        url: `http://127.0.0.1:${PORT}`,
        connections: CONNECTIONS,
        duration: seconds,
        requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/v1/qrs/${ids[Math.floor(Math.random() * ids.length)]!}`, headers }) }],
      });
    await run(3);
    const cpu = cpuReader({ API: [api.pid ?? 0] }, loadConfig(env).redisUrl, env.DATABASE_URL);
    const before = await cpu();
    const result = await run(SECONDS);
    const after = await cpu();
    const figures = {
      apiProcesses: API_PROCESSES,
      perSecond: Math.round(result.requests.average),
      ok: result['2xx'],
      non2xx: result.non2xx,
      cpuMsPerGet: cpuPerSale(before, after, result['2xx']),
    };
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    await stopProcesses(api, worker);
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
