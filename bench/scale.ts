// `npm run bench:scale` (issue #30): the service as 1 API + 1 worker process and as 2 + 2 in the same run,
// on one database and a Redis server of the run's own (a private `redis-server` on loopback, so its
// INFO commandstats count this run's commands alone). For each layout: POST /v1/qrs throughput spread
// over the APIs (autocannon, one instance per API), and Redis commands and bytes per sale over a fixed
// number of sales. BENCH_SCALE_SECONDS (10), BENCH_SCALE_CONNECTIONS (50 in all), BENCH_SCALE_SALES (2000).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { sampleSale } from '../test/fixtures/sample-sale.js';
import { machine } from './figures.js';
import { benchEnv, freshAccount, removeRunData, startProcess, waitHealthy, type ServiceEnv } from './stack.js';

const SECONDS = Number(process.env.BENCH_SCALE_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_SCALE_CONNECTIONS ?? 50);
const SALES = Number(process.env.BENCH_SCALE_SALES ?? 2000);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/autofactura_bench';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
      .once('error', () => resolve(false))
      .listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });
}

/** A throwaway Redis: no persistence, nothing shared with the machine's other users. */
async function privateRedis(): Promise<{ url: string; process: ChildProcess }> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}/0`;
  for (let i = 0; ; i++) {
    const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      return { url, process: child };
    } catch (err) {
      if (i > 50) {
        child.kill('SIGTERM');
        throw err;
      }
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      probe.disconnect();
    }
  }
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

interface RedisUse {
  commands: number;
  outputBytes: number;
  inputBytes: number;
  byCommand: Record<string, number>;
}

async function redisUse(redis: Redis): Promise<RedisUse> {
  const stats = await redis.info('commandstats');
  const byCommand: Record<string, number> = {};
  for (const m of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) byCommand[m[1]!] = Number(m[2]);
  const info = await redis.info('stats');
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  // The INFO calls of this measurement are in the counts: two per reading, said in the table.
  return { commands: Object.values(byCommand).reduce((a, b) => a + b, 0), outputBytes: field('total_net_output_bytes'), inputBytes: field('total_net_input_bytes'), byCommand };
}

interface Account {
  apiKey: string;
  storeUid: string;
}

const expiresAt = () => new Date(Date.now() + 86_400_000);
const saleBody = (account: Account) => JSON.stringify(sampleSale(account.storeUid, expiresAt(), `sale-${randomUUID()}`));
const saleHeaders = (account: Account) => ({
  'X-API-Key': account.apiKey,
  'X-TIME-ZONE': 'America/Mexico_City',
  'idempotency-key': randomUUID(),
  'content-type': 'application/json',
});

/** `count` sales, `concurrency` at a time, round-robin over the APIs; every answer must be 201. */
async function sales(apis: string[], account: Account, count: number, concurrency: number): Promise<void> {
  let next = 0;
  const one = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      const res = await fetch(`${apis[i % apis.length]}/v1/qrs`, { method: 'POST', headers: saleHeaders(account), body: saleBody(account) });
      await res.arrayBuffer();
      if (res.status !== 201) throw new Error(`sale ${i}: ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, one));
}

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
  const workers = Array.from({ length: workerCount }, () => startProcess('../bin/worker.ts', env));
  // Free ports below the ephemeral range (the processes' own listeners take ports from it): another bench
  // on the machine may hold any fixed one.
  const apiPorts: number[] = [];
  for (let port = 3937; apiPorts.length < apiCount; port++) if (await isFree(port)) apiPorts.push(port);
  const apiProcesses = apiPorts.map((port) => startProcess('../bin/web.ts', env, { PORT: String(port) }));
  const apis = apiPorts.map((port) => `http://127.0.0.1:${port}`);
  try {
    // Four processes starting at once on two cores take longer than one: up to a minute.
    await Promise.all(
      apis.map((api) =>
        waitHealthy(`${api}/health`)
          .catch(() => waitHealthy(`${api}/health`))
          .catch(() => waitHealthy(`${api}/health`)),
      ),
    );
    await throughput(apis, account, 3); // warm-up: JIT, pools, catalogs
    await redis.config('RESETSTAT');
    const before = await redisUse(redis);
    const started = performance.now();
    await sales(apis, account, SALES, 20);
    const salesSeconds = (performance.now() - started) / 1000;
    const after = await redisUse(redis);
    const perSale = (n: number) => Math.round((n / SALES) * 100) / 100;
    const byCommand = Object.fromEntries(
      Object.entries(after.byCommand)
        .map(([cmd, n]) => [cmd, perSale(n - (before.byCommand[cmd] ?? 0))] as const)
        .filter(([, n]) => n >= 0.01)
        .sort((a, b) => b[1] - a[1]),
    );
    const load = await throughput(apis, account, SECONDS);
    return {
      apis: apiCount,
      workers: workerCount,
      redisPerSale: {
        commands: perSale(after.commands - before.commands),
        outputBytes: Math.round((after.outputBytes - before.outputBytes) / SALES),
        inputBytes: Math.round((after.inputBytes - before.inputBytes) / SALES),
        byCommand,
        salesPerSecond: Math.round(SALES / salesSeconds),
      },
      load,
    };
  } finally {
    for (const p of [...apiProcesses, ...workers]) p.kill('SIGTERM');
    await Promise.all([...apiProcesses, ...workers].map(exited));
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
      `${f.apis} API + ${f.workers} worker: ${f.load.perSecond} QR/s (p50 ${f.load.p50} ms, p99 ${f.load.p99} ms, non-2xx ${f.load.non2xx} ${JSON.stringify(f.load.statusCodes)}, errors ${f.load.errors}); ` +
      `Redis per sale: ${f.redisPerSale.commands} commands (those BullMQ's scripts run included), ${f.redisPerSale.inputBytes} B in, ${f.redisPerSale.outputBytes} B out (${SALES} sales at 20 at a time, ${f.redisPerSale.salesPerSecond}/s)\n` +
      `   per sale by command: ${Object.entries(f.redisPerSale.byCommand)
        .map(([c, n]) => `${c} ${n}`)
        .join(', ')}\n`;
    process.stdout.write(`\n${host.cores} cores (${host.cpu}), load average at start ${host.loadAtStart.join(' ')}, ${CONNECTIONS} connections, ${SECONDS} s\n`);
    process.stdout.write(line(one) + line(two));
    process.stdout.write(`2+2 / 1+1: ${Math.round((two.load.perSecond / one.load.perSecond) * 100) / 100}×\n`);
    process.stdout.write(`${JSON.stringify({ machine: host, seconds: SECONDS, connections: CONNECTIONS, sales: SALES, layouts: [one, two] })}\n`);
  } finally {
    redis.disconnect();
    await removeRunData(env).catch(() => undefined);
    own.process.kill('SIGTERM');
    await exited(own.process);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
