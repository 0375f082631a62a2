// `npm run bench:fleet`: a POS fleet at a steady rate for minutes (issue #19: 0 non-2xx and max < 500 ms
// for 10 minutes at half the maximum throughput), API and workers as separate processes. Prints the
// latency distribution, every non-2xx and error, and the processes' memory at the start and the end (a
// leak shows as growth). BENCH_FLEET_RATE (QR/s, default 400), BENCH_FLEET_SECONDS (600),
// BENCH_FLEET_CLIENTS (10 connections).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { saleBodies } from './sale-bodies.js';
import { machine } from './figures.js';
import { benchEnv, freshAccount, removeRunData, startProcess, waitHealthy } from './stack.js';

const RATE = Number(process.env.BENCH_FLEET_RATE ?? 400);
const SECONDS = Number(process.env.BENCH_FLEET_SECONDS ?? 600);
const CLIENTS = Number(process.env.BENCH_FLEET_CLIENTS ?? 10);
const PORT = Number(process.env.BENCH_PORT ?? 3927);
const env = benchEnv(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/autofactura_bench', PORT);

/** Resident memory of a process in MB, from /proc. */
function rssMb(pid: number | undefined): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Math.round(Number(kb) / 1024);
}

async function main(): Promise<void> {
  const account = await freshAccount(env);
  const workers = startProcess('../bin/worker.ts', env);
  const api = startProcess('../bin/web.ts', env);
  try {
    await waitHealthy(`http://127.0.0.1:${PORT}/health`);
    const body = saleBodies(account.storeUid);
    const fleet = (seconds: number) =>
      autocannon({
        url: `http://127.0.0.1:${PORT}/v1/qrs`,
        method: 'POST',
        connections: CLIENTS,
        overallRate: RATE,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => ({
              ...req,
              headers: { 'X-API-Key': account.apiKey, 'X-TIME-ZONE': 'America/Mexico_City', 'idempotency-key': randomUUID(), 'content-type': 'application/json' },
              body: body(),
            }),
          },
        ],
      });
    await fleet(5); // warm-up: JIT, pools, catalogs
    const memoryAtStart = { api: rssMb(api.pid), worker: rssMb(workers.pid) };
    const result = await fleet(SECONDS);
    const memoryAtEnd = { api: rssMb(api.pid), worker: rssMb(workers.pid) };
    const figures = {
      machine: machine(),
      rate: RATE,
      seconds: SECONDS,
      clients: CLIENTS,
      requests: result.requests.total,
      perSecond: Math.round(result.requests.average),
      latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      statusCodes: result.statusCodeStats,
      memoryMb: { atStart: memoryAtStart, atEnd: memoryAtEnd },
    };
    const met = figures.non2xx === 0 && figures.errors === 0 && figures.latencyMs.max < 500;
    process.stdout.write(
      `\nPOS fleet: ${CLIENTS} clients at ${RATE} QR/s for ${SECONDS} s: ${figures.requests} requests (${figures.perSecond}/s), ` +
        `p50 ${figures.latencyMs.p50} ms, p99 ${figures.latencyMs.p99} ms, max ${figures.latencyMs.max} ms, non-2xx ${figures.non2xx}, errors ${figures.errors}; ` +
        `RSS api ${memoryAtStart.api} → ${memoryAtEnd.api} MB, worker ${memoryAtStart.worker} → ${memoryAtEnd.worker} MB. ` +
        `Target 0 non-2xx and max < 500 ms: ${met ? 'met' : 'NOT met'}\n${JSON.stringify(figures)}\n`,
    );
  } finally {
    api.kill('SIGTERM');
    workers.kill('SIGTERM');
    await Promise.all([api, workers].map((p) => new Promise((resolve) => (p.exitCode === null ? p.once('exit', resolve) : resolve(undefined)))));
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
