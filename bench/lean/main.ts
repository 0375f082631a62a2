// The lean same-work server as processes (docs/performance.md, "The lean same-work server"): the primary creates
// the table, forks one worker per core (node:cluster, sharing the port), tells its parent the port once
// all listen, and on SIGTERM stops them and drops the table. Env: PORT, DATABASE_URL, REDIS_URL,
// QUEUE_PREFIX (its Redis keys live under it), BENCH_LEAN_QR, BENCH_LEAN_PROCESSES.
import cluster from 'node:cluster';
import { Redis } from 'ioredis';
import pg from 'pg';
import { loadConfig } from '../../shared/platform/config.js';
import { processCount } from '../stack.js';
import { leanApp } from './app.js';
import { leanEncoder } from './render.js';
import { createLeanTable, dropLeanTable } from './store.js';

const config = loadConfig(process.env);
const port = Number(process.env.PORT ?? 0);
const processes = processCount('BENCH_LEAN_PROCESSES');

async function primary(): Promise<void> {
  await createLeanTable(config.databaseUrl);
  let listening = 0;
  cluster.on('listening', (_worker, address) => {
    if (++listening === processes) process.send?.({ port: address.port });
  });
  for (let i = 0; i < processes; i++) cluster.fork();
  process.on('SIGTERM', () => {
    const exits = Object.values(cluster.workers ?? {}).map((w) => new Promise((r) => w?.once('exit', r)));
    for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGTERM');
    void Promise.all(exits)
      .then(() => dropLeanTable(config.databaseUrl))
      .then(
        () => process.exit(0),
        (err: unknown) => {
          process.stderr.write(`lean server: ${String(err)}\n`);
          process.exit(1);
        },
      );
  });
}

function worker(): void {
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 10 });
  // Its own connection: nothing else queues commands on it.
  const redis = new Redis(config.redisUrl);
  const app = leanApp({
    pool,
    redis,
    prefix: config.queuePrefix,
    publicBaseUrl: config.publicBaseUrl,
    hmacKey: config.qrHmacKey,
    encoder: leanEncoder(process.env.BENCH_LEAN_QR),
    ratePerMinute: config.apiKeyRatePerMin,
  });
  const server = app.listen(port, '127.0.0.1');
  process.on('SIGTERM', () => {
    server.close(() => {
      redis.disconnect();
      void pool.end().finally(() => process.exit(0));
    });
    server.closeAllConnections();
  });
}

if (cluster.isPrimary) await primary();
else worker();
