// Redis commands per sale by process layout and concurrency (issue #40): the service as `apis` API + `workers`
// worker processes on a Redis server of the run's own (a private `redis-server` on loopback, so its INFO
// commandstats count these processes' commands alone, those BullMQ's scripts run included), sales sent
// `concurrency` at a time round-robin over the APIs. Counts, not timings: they hold on a loaded machine,
// except the idle polling, which is counted too and grows with the run's length.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { freePort } from '../chaos/free-port.js';
import { startRedisServer, stopProcess } from '../chaos/redis-server-process.js';
import { sampleSale } from '../test/fixtures/sample-sale.js';
import { startProcess, stopProcesses, waitHealthy, type ServiceEnv } from './stack.js';

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
      .once('error', () => resolve(false))
      .listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });
}

export interface PrivateRedis {
  url: string;
  close(): Promise<void>;
}

/** A throwaway Redis: no persistence, nothing shared with the machine's other users. */
export async function privateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const child = await startRedisServer(['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
  return { url: `redis://127.0.0.1:${port}/0`, close: () => stopProcess(child) };
}

export interface RedisUse {
  commands: number;
  outputBytes: number;
  inputBytes: number;
  byCommand: Record<string, number>;
}

/** The server's command counts by name and its bytes in and out so far (this reading's two INFOs are in the next one). */
export async function redisUse(redis: Redis): Promise<RedisUse> {
  const stats = await redis.info('commandstats');
  const byCommand: Record<string, number> = {};
  for (const m of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) byCommand[m[1]!] = Number(m[2]);
  const info = await redis.info('stats');
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  return { commands: Object.values(byCommand).reduce((a, b) => a + b, 0), outputBytes: field('total_net_output_bytes'), inputBytes: field('total_net_input_bytes'), byCommand };
}

export interface SaleAccount {
  apiKey: string;
  storeUid: string;
}

const expiresAt = () => new Date(Date.now() + 86_400_000);
export const saleBody = (account: SaleAccount): string => JSON.stringify(sampleSale(account.storeUid, expiresAt(), `sale-${randomUUID()}`));
export const saleHeaders = (account: SaleAccount): Record<string, string> => ({
  'X-API-Key': account.apiKey,
  'X-TIME-ZONE': 'America/Mexico_City',
  'idempotency-key': randomUUID(),
  'content-type': 'application/json',
});

/** `count` sales, `concurrency` at a time, round-robin over the APIs; every answer must be 201. */
export async function sendSales(apis: string[], account: SaleAccount, count: number, concurrency: number): Promise<void> {
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

/** Redis per sale over one run of sales at one concurrency. */
export interface SaleCommands {
  concurrency: number;
  sales: number;
  /** Every command the server ran during the sales, per sale: the deployment's background (its sweeps, the workers' polling) included. */
  commands: number;
  /** Without the background: `commands` less the idle rate measured just before, times the run's length. */
  ownCommands: number;
  /** The deployment's commands a second with no sale (BENCH_SALE_IDLE_SECONDS before the sales). */
  idlePerSecond: number;
  inputBytes: number;
  outputBytes: number;
  /** Per command name, largest first (BullMQ's scripts as evalsha, and each command they run under its own name). */
  byCommand: Record<string, number>;
  salesPerSecond: number;
}

const IDLE_SECONDS = Number(process.env.BENCH_SALE_IDLE_SECONDS ?? 5);

/** Runs `count` sales at `concurrency` and reads the private Redis's counters around them, and the idle rate before. */
export async function measureSaleCommands(redis: Redis, apis: string[], account: SaleAccount, count: number, concurrency: number): Promise<SaleCommands> {
  const idleFrom = await redisUse(redis);
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  const idleTo = await redisUse(redis);
  // Less this reading's own two INFOs.
  const idlePerSecond = Math.max(0, idleTo.commands - idleFrom.commands - 2) / IDLE_SECONDS;
  await redis.config('RESETSTAT');
  const before = await redisUse(redis);
  const started = performance.now();
  await sendSales(apis, account, count, concurrency);
  const seconds = (performance.now() - started) / 1000;
  const after = await redisUse(redis);
  const round = (n: number) => Math.round(n * 100) / 100;
  const perSale = (n: number) => round(n / count);
  const byCommand = Object.fromEntries(
    Object.entries(after.byCommand)
      .map(([cmd, n]) => [cmd, perSale(n - (before.byCommand[cmd] ?? 0))] as const)
      .filter(([, n]) => n >= 0.01)
      .sort((a, b) => b[1] - a[1]),
  );
  const commands = after.commands - before.commands;
  return {
    concurrency,
    sales: count,
    commands: perSale(commands),
    ownCommands: perSale(Math.max(0, commands - idlePerSecond * seconds)),
    idlePerSecond: round(idlePerSecond),
    inputBytes: Math.round((after.inputBytes - before.inputBytes) / count),
    outputBytes: Math.round((after.outputBytes - before.outputBytes) / count),
    byCommand,
    salesPerSecond: Math.round(count / seconds),
  };
}

export interface Layout {
  apis: string[];
  stop(): Promise<void>;
}

/** `apiCount` API and `workerCount` worker processes on `env` (its Redis, database and queue prefix). */
export async function startLayout(env: ServiceEnv, apiCount: number, workerCount: number): Promise<Layout> {
  const workers: ChildProcess[] = Array.from({ length: workerCount }, () => startProcess('../bin/worker.ts', env));
  // Free ports below the ephemeral range (the processes' own listeners take ports from it): another bench
  // on the machine may hold any fixed one.
  const apiPorts: number[] = [];
  for (let port = 3937; apiPorts.length < apiCount; port++) if (await isFree(port)) apiPorts.push(port);
  const apiProcesses = apiPorts.map((port) => startProcess('../bin/web.ts', env, { PORT: String(port) }));
  const apis = apiPorts.map((port) => `http://127.0.0.1:${port}`);
  const stop = () => stopProcesses(...apiProcesses, ...workers);
  try {
    // Four processes starting at once on two cores take longer than one: up to a minute.
    await Promise.all(
      apis.map((api) =>
        waitHealthy(`${api}/health`)
          .catch(() => waitHealthy(`${api}/health`))
          .catch(() => waitHealthy(`${api}/health`)),
      ),
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { apis, stop };
}

/** BENCH_SALE_CONCURRENCY: the concurrencies measured, low to high (1: every render job carries one QR). */
export const saleConcurrencies = (): number[] => (process.env.BENCH_SALE_CONCURRENCY ?? '1,50').split(',').map(Number);
/** BENCH_SALE_COMMAND_SALES: sales per measurement. */
export const SALES_PER_MEASUREMENT = Number(process.env.BENCH_SALE_COMMAND_SALES ?? 500);

/** One line per measurement: the total and the commands that make it. */
export function saleCommandLines(layout: string, runs: SaleCommands[]): string[] {
  return runs.map(
    (r) =>
      `${layout}, ${r.concurrency} at a time: ${r.commands} Redis commands per sale, ${r.ownCommands} without the idle ${r.idlePerSecond}/s ` +
      `(${r.inputBytes} B in, ${r.outputBytes} B out; ${r.sales} sales, ${r.salesPerSecond}/s)\n` +
      `   ${Object.entries(r.byCommand)
        .map(([c, n]) => `${c} ${n}`)
        .join(', ')}`,
  );
}

export interface LayoutSaleCommands {
  apis: number;
  workers: number;
  runs: SaleCommands[];
}

/**
 * `npm run bench`'s reading (issue #40): 1 API + 1 worker, then 2 + 2, on a private Redis and the run's own
 * database and account, each at every concurrency of saleConcurrencies(), after a warm-up of 50 sales.
 */
export async function benchSaleCommands(
  env: ServiceEnv,
  account: SaleAccount,
  layouts: [number, number][] = [
    [1, 1],
    [2, 2],
  ],
): Promise<LayoutSaleCommands[]> {
  const own = await privateRedis();
  const redis = new Redis(own.url);
  const results: LayoutSaleCommands[] = [];
  try {
    for (const [apiCount, workerCount] of layouts) {
      const running = await startLayout({ ...env, REDIS_URL: own.url, LOG_LEVEL: 'error' }, apiCount, workerCount);
      try {
        await sendSales(running.apis, account, 50, 10);
        const runs: SaleCommands[] = [];
        for (const concurrency of saleConcurrencies()) runs.push(await measureSaleCommands(redis, running.apis, account, SALES_PER_MEASUREMENT, concurrency));
        results.push({ apis: apiCount, workers: workerCount, runs });
      } finally {
        await running.stop();
      }
    }
  } finally {
    redis.disconnect();
    await own.close();
  }
  return results;
}
