// `npm run bench:scale` (issue #30): the service as 1 API + 1 worker process and as 2 + 2 in the same run,
// on one database and a Redis server of the run's own (a private `redis-server` on loopback, so its
// INFO commandstats count this run's commands alone). For each layout: POST /v1/qrs throughput spread
// over the APIs (autocannon, one instance per API), and Redis commands and bytes per sale at low and high
// concurrency (bench/sale-commands.ts: BENCH_SALE_CONCURRENCY, 1 and 50; BENCH_SALE_COMMAND_SALES, 500 each).
// BENCH_SCALE_SECONDS (10), BENCH_SCALE_CONNECTIONS (50 in all).
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { machine } from './figures.js';
import {
  measureSaleCommands,
  privateRedis,
  saleBody,
  saleCommandLines,
  saleConcurrencies,
  saleHeaders,
  SALES_PER_MEASUREMENT,
  startLayout,
  type SaleAccount,
} from './sale-commands.js';
import { benchEnv, freshAccount, removeRunData, type ServiceEnv } from './stack.js';

const SECONDS = Number(process.env.BENCH_SCALE_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_SCALE_CONNECTIONS ?? 50);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/autofactura_bench';

type Account = SaleAccount;

/** POST /v1/qrs from one autocannon per API for `seconds`, the connections split between them. */
async function throughput(apis: string[], account: Account, seconds: number) {
  const results = await Promise.all(
    apis.map((api) =>
      autocannon({
        url: `${api}/v1/qrs`,
        method: 'POST',
        connections: Math.max(1, Math.round(CONNECTIONS / apis.length)),
        duration: seconds,
        requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, headers: saleHeaders(account), body: saleBody(account) }) }],
      }),
    ),
  );
  return {
    perSecond: Math.round(results.reduce((sum, r) => sum + r.requests.average, 0)),
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
    statusCodes: results.map((r) => Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, s.count]))),
  };
}

async function layout(env: ServiceEnv, redis: Redis, account: Account, apiCount: number, workerCount: number) {
  const running = await startLayout(env, apiCount, workerCount);
  const { apis } = running;
  try {
    await throughput(apis, account, 3); // warm-up: JIT, pools, catalogs
    const redisPerSale = [];
    for (const concurrency of saleConcurrencies()) redisPerSale.push(await measureSaleCommands(redis, apis, account, SALES_PER_MEASUREMENT, concurrency));
    const load = await throughput(apis, account, SECONDS);
    return { apis: apiCount, workers: workerCount, redisPerSale, load };
  } finally {
    await running.stop();
  }
}

async function main(): Promise<void> {
  const own = await privateRedis();
  const env: ServiceEnv = { ...benchEnv(DATABASE_URL, 0), REDIS_URL: own.url, LOG_LEVEL: 'error' };
  const redis = new Redis(own.url);
  try {
    const account = await freshAccount(env);
    const one = await layout(env, redis, account, 1, 1);
    const two = await layout(env, redis, account, 2, 2);
    const host = machine();
    const line = (f: typeof one) =>
      `${f.apis} API + ${f.workers} worker: ${f.load.perSecond} QR/s (p50 ${f.load.p50} ms, p99 ${f.load.p99} ms, non-2xx ${f.load.non2xx} ${JSON.stringify(f.load.statusCodes)}, errors ${f.load.errors})\n` +
      `${saleCommandLines(`${f.apis} API + ${f.workers} worker`, f.redisPerSale).join('\n')}\n`;
    process.stdout.write(`\n${host.cores} cores (${host.cpu}), load average at start ${host.loadAtStart.join(' ')}, ${CONNECTIONS} connections, ${SECONDS} s\n`);
    process.stdout.write(line(one) + line(two));
    process.stdout.write(`2+2 / 1+1: ${Math.round((two.load.perSecond / one.load.perSecond) * 100) / 100}×\n`);
    process.stdout.write(`${JSON.stringify({ machine: host, seconds: SECONDS, connections: CONNECTIONS, salesPerMeasurement: SALES_PER_MEASUREMENT, layouts: [one, two] })}\n`);
  } finally {
    redis.disconnect();
    await removeRunData(env).catch(() => undefined);
    await own.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
