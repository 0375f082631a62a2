// What every bench that drives the real service needs: its own database and queue prefix, an account,
// the API and the workers as separate processes (as in production), and cleaning up after the run.
import { fork, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import knexFactory from 'knex';
import { bootstrapAccount } from '../cli/bootstrap.js';
import { loadConfig } from '../shared/platform/config.js';
import { ensureDatabase, knexConfig } from '../shared/platform/db.js';
import { startFakeCsfServer } from '../fakes/csf-server.js';
import { startFakePacServer, type FakePacServer } from '../fakes/pac-server.js';
import { startFakeSmtpServer } from '../fakes/smtp-server.js';
import { shardPrefixes } from '../shared/platform/queue-shards.js';
import { removeKeysMatching } from '../test/helpers/redis-keys.js';

export type BenchEnv = Record<string, string>;
/** A bench run's service environment: what the helpers below read from it is always there. */
export type ServiceEnv = BenchEnv & { DATABASE_URL: string; QUEUE_PREFIX: string; FILE_STORE_DIR: string };

/** The service's environment for a bench run on `port`, with its own database, queue prefix and files. */
export function benchEnv(databaseUrl: string, port: number): ServiceEnv {
  return {
    ...(process.env as BenchEnv),
    NODE_ENV: 'development',
    LOG_FORMAT: 'json',
    WORKER_METRICS_PORT: '0',
    DATABASE_URL: databaseUrl,
    QUEUE_PREFIX: `afbench${process.pid}`,
    LOG_LEVEL: 'warn',
    PORT: String(port),
    PUBLIC_BASE_URL: 'https://factura.example.test',
    EXPIRY_SWEEP_MS: '3600000',
    FILE_STORE_DIR: join(tmpdir(), `afbench-files-${process.pid}`),
    // Every simulated buyer comes from 127.0.0.1: the per-IP limits of the public routes would stop the run.
    PUBLIC_RATE_PER_IP: '100000000',
    PUBLIC_RATE_PER_TOKEN: '100000000',
    // One API key drives the whole run: its per-key limit (1,200/min by default) would measure the limiter.
    API_KEY_RATE_PER_MIN: '100000000',
    MANAGEMENT_RATE_PER_IP: '100000000',
  };
}

/** BENCH_PROFILE=1 writes a V8 CPU profile of each process to bench/profiles/ (open in Chrome DevTools). */
const profile = process.env.BENCH_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${new URL('./profiles/', import.meta.url).pathname}`] : [];
/** BENCH_STATEMENTS=1 counts each process's PostgreSQL statements (bench/count-statements.ts; see statementsOf). */
const counting = process.env.BENCH_STATEMENTS === '1' ? ['--import', new URL('./count-statements.ts', import.meta.url).pathname] : [];

/** A TypeScript entry (relative to bench/) as its own process. */
export function startProcess(script: string, env: BenchEnv, extraEnv: BenchEnv = {}): ChildProcess {
  return fork(new URL(script, import.meta.url).pathname, [], { env: { ...env, ...extraEnv }, execArgv: ['--import', 'tsx', ...counting, ...profile], stdio: 'inherit' });
}

/** The PostgreSQL statements a process has sent so far, and how many of them PostgreSQL parsed, when BENCH_STATEMENTS=1 (else undefined). */
export async function statementCountsOf(child: ChildProcess): Promise<{ statements: number; parsed: number } | undefined> {
  if (counting.length === 0 || !child.connected) return undefined;
  const answer = new Promise<{ statements: number; parsed: number }>((resolve) => {
    const listener = (message: unknown) => {
      if (typeof message === 'object' && message !== null && 'statements' in message && 'parsed' in message) {
        child.off('message', listener);
        resolve({ statements: Number(message.statements), parsed: Number(message.parsed) });
      }
    };
    child.on('message', listener);
  });
  child.send('bench:statements');
  return answer;
}

/** The PostgreSQL statements a process has sent so far, when BENCH_STATEMENTS=1 (else undefined). */
export async function statementsOf(child: ChildProcess): Promise<number | undefined> {
  return (await statementCountsOf(child))?.statements;
}

/** A bench's process count from `variable` (BENCH_API_PROCESSES, BENCH_LEAN_PROCESSES): one per core unless set. */
export function processCount(variable: string): number {
  return Number(process.env[variable] ?? availableParallelism());
}

/**
 * The project's API as `processes` processes on the environment's PORT: bin/web.ts itself for one, else
 * bench/api-processes.ts (node:cluster standing in for production's load balancer over several `web` processes).
 */
export function startApi(env: BenchEnv, processes: number, extraEnv: BenchEnv = {}): ChildProcess {
  return processes === 1 ? startProcess('../bin/web.ts', env, extraEnv) : startProcess('./api-processes.ts', env, { ...extraEnv, BENCH_API_PROCESSES: String(processes) });
}

/**
 * The external parties (PAC, SMTP, SAT's CSF service) as fakes in the bench's own process, their addresses in
 * `env` for the API and the workers: otherwise each development entry starts its own inside the process,
 * and the worker's CPU per CFDI would carry the SMTP server receiving every e-mail. The PAC is the bench's
 * to steer (its latency, whether it validates).
 */
export async function startBenchParties(): Promise<{ pac: FakePacServer; env: BenchEnv; close(): Promise<void> }> {
  const [pac, smtp, csf] = await Promise.all([startFakePacServer(), startFakeSmtpServer(), startFakeCsfServer()]);
  return {
    pac,
    env: { PAC_BASE_URL: pac.url, PAC_TOKEN: pac.token, SAT_STATUS_URL: `${pac.url}/ConsultaCFDIService.svc`, SMTP_URL: smtp.url, CSF_BASE_URL: csf.url },
    close: async () => {
      await Promise.all([pac.close(), smtp.close(), csf.close()]);
    },
  };
}

/** SIGTERM to each process and wait until they have exited: nothing of theirs writes after the run's data is removed. */
export async function stopProcesses(...children: (ChildProcess | undefined)[]): Promise<void> {
  await Promise.all(
    children.map((child) => {
      if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      return gone;
    }),
  );
}

/** Up to a minute: several API processes starting through tsx on a loaded 2-core machine took over 20 s. */
export async function waitHealthy(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} never became healthy`);
}

/** An empty, migrated database with one account (merchant, CSD, API key). */
export async function freshAccount(env: ServiceEnv): Promise<Awaited<ReturnType<typeof bootstrapAccount>>> {
  await ensureDatabase(env.DATABASE_URL);
  const db = knexFactory(knexConfig(env.DATABASE_URL));
  try {
    await db.raw('DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;');
    await db.migrate.latest();
    return await bootstrapAccount(db, loadConfig(env), 'bench');
  } finally {
    await db.destroy();
  }
}

/**
 * The run's files, queues and service keys (idempotency cache, counters: all under its queue prefix) go with it: the Redis is shared with everything else on
 * the machine (a fleet run leaves hundreds of thousands of cached answers under its merchant otherwise).
 */
export async function removeRunData(env: ServiceEnv): Promise<void> {
  await rm(env.FILE_STORE_DIR, { recursive: true, force: true });
  const cfg = loadConfig(env);
  const redis = new Redis(cfg.redisUrl);
  try {
    // Each queue shard's keys are under a prefix of its own (QUEUE_SHARDS).
    for (const prefix of new Set([env.QUEUE_PREFIX, ...shardPrefixes(env.QUEUE_PREFIX, cfg.queueShards)])) await removeKeysMatching(redis, `${prefix}:*`);
  } finally {
    redis.disconnect();
  }
}
