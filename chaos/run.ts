// `npm run chaos`: fault scenarios against the service's real processes (API and worker, each its own
// process), on a PostgreSQL cluster and a redis-server this run starts for itself and removes at the end
// (the machine's shared ones are never touched). Every request and answer is recorded; invariants are
// checked afterwards on that history and on the database. Prints one table; exits 1 if any invariant fails.
//
//   npm run chaos                                   # every scenario, default sizes
//   npm run chaos -- worker-kill api-kill           # some of them
//   CHAOS_KILLS=100 CHAOS_LONG=1 npm run chaos      # 100 worker kills, and the 60 s Redis outage too
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import { bootstrapAccount } from '../cli/bootstrap.js';
import { startFakePacServer } from '../fakes/pac-server.js';
import { loadConfig } from '../shared/platform/config.js';
import { ensureDatabase, knexConfig } from '../shared/platform/db.js';
import type { ChaosContext } from './chaos-context.js';
import { startOwnPostgres } from './own-postgres.js';
import { startOwnRedis, type OwnRedis } from './own-redis.js';
import { failedChecks, formatReport } from './report.js';
import type { ScenarioResult } from './scenario-result.js';
import { killWorkerMidStamp } from './scenarios/kill-worker-mid-stamp.js';
import { killApiDuringPosts } from './scenarios/kill-api-during-posts.js';
import { redisOutage } from './scenarios/redis-outage.js';
import { redisFlushAll } from './scenarios/redis-flushall.js';
import { massExpiry } from './scenarios/mass-expiry.js';
import { postgresCrash } from './scenarios/postgres-crash.js';
import { pacFaults } from './scenarios/pac-faults.js';
import { pacToken } from './scenarios/pac-token.js';
import { commitKill } from './scenarios/commit-kill.js';
import { csfFaults } from './scenarios/csf-faults.js';
import { redisClusterFailover } from './scenarios/redis-cluster-failover.js';
import { redisUnreplicatedJobs } from './scenarios/redis-unreplicated-jobs.js';
import type { OwnPostgres } from './own-postgres.js';

const LONG = process.env.CHAOS_LONG === '1';
const KILLS = Number(process.env.CHAOS_KILLS ?? (LONG ? 100 : 20));

type Scenario = (ctx: ChaosContext, own: { redis: OwnRedis; postgres: OwnPostgres }) => Promise<ScenarioResult[]>;

const SCENARIOS: Record<string, Scenario> = {
  'worker-kill': async (ctx) => [await killWorkerMidStamp(ctx, { kills: KILLS })],
  'api-kill': async (ctx) => [await killApiDuringPosts(ctx, { posts: 100, kills: Number(process.env.CHAOS_API_KILLS ?? 5) })],
  'redis-down': async (ctx, own) => {
    const results = [await redisOutage(ctx, own.redis, { outageMs: 5_000, rate: 150 })];
    if (LONG) results.push(await redisOutage(ctx, own.redis, { outageMs: 60_000, rate: 150 }));
    return results;
  },
  'redis-flush': async (ctx, own) => [await redisFlushAll(ctx, own.redis, { pending: Number(process.env.CHAOS_PENDING ?? 500) })],
  'mass-expiry': async (ctx) => [await massExpiry(ctx, { expiring: Number(process.env.CHAOS_EXPIRING ?? 10_000), windowMs: Number(process.env.CHAOS_EXPIRY_WINDOW_MS ?? 5_000) })],
  'pg-crash': async (ctx, own) => [await postgresCrash(ctx, own.postgres, { rate: 50, downMs: 3_000 })],
  'pac-faults': async (ctx) => [await pacFaults(ctx, { faultMs: 8_000 })],
  'pac-token': async (ctx) => [await pacToken(ctx, { confirmations: Number(process.env.CHAOS_CONFIRMS ?? 20), refusedMs: 10_000 })],
  'pac-co1000': async (ctx) => [await pacFaults(ctx, { faultMs: 8_000, faults: ['co1000'] })],
  'csf-faults': async (ctx) => [await csfFaults(ctx, { faultMs: 8_000 })],
  'redis-cluster': async (ctx) => [
    await redisClusterFailover(ctx, {
      rate: Number(process.env.CHAOS_RATE ?? 50),
      confirms: Number(process.env.CHAOS_CONFIRMS ?? 20),
      queueShards: Number(process.env.CHAOS_QUEUE_SHARDS ?? 3),
    }),
  ],
  'redis-unreplicated': async (ctx) => [await redisUnreplicatedJobs(ctx, { sales: Number(process.env.CHAOS_SALES ?? 30) })],
  'commit-kill': async (ctx) => [await commitKill(ctx, { crashes: Number(process.env.CHAOS_COMMIT_KILLS ?? (LONG ? 100 : 30)) })],
};

async function main(): Promise<number> {
  const chosen = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  for (const name of chosen) if (!SCENARIOS[name]) throw new Error(`unknown scenario ${name}; one of ${Object.keys(SCENARIOS).join(', ')}`);
  const names = chosen.length > 0 ? chosen : Object.keys(SCENARIOS);

  const workDir = await mkdtemp(join(tmpdir(), 'afchaos-'));
  const postgres = await startOwnPostgres();
  const redis = await startOwnRedis();
  const pac = await startFakePacServer();
  const databaseUrl = postgres.url('autofactura_chaos');
  await ensureDatabase(databaseUrl);
  const db = knexFactory(knexConfig(databaseUrl));
  const results: ScenarioResult[] = [];
  try {
    await db.migrate.latest();
    const env = { ...process.env, NODE_ENV: 'development', DATABASE_URL: databaseUrl, REDIS_URL: redis.url };
    const account = await bootstrapAccount(db, loadConfig(env), 'chaos');
    const ctx: ChaosContext = { db, databaseUrl, redisUrl: redis.url, account, pac, workDir };
    process.stdout.write(`chaos: PostgreSQL ${databaseUrl}, Redis ${redis.url}, logs in ${workDir}\n`);
    for (const name of names) {
      process.stdout.write(`chaos: ${name}…\n`);
      try {
        const got = await SCENARIOS[name]!(ctx, { redis, postgres });
        results.push(...got);
        for (const r of got) process.stdout.write(formatReport([r]).split('\n')[2] + '\n');
      } catch (err) {
        results.push({
          scenario: name,
          counts: '',
          checks: [{ name: 'scenario ran', ok: false, detail: err instanceof Error ? err.message : String(err) }],
          timings: '',
          seconds: 0,
        });
      }
    }
  } finally {
    await db.destroy().catch(() => undefined);
    await pac.close();
    await redis.remove();
    await postgres.remove();
    if (process.env.CHAOS_KEEP_LOGS !== '1') await rm(workDir, { recursive: true, force: true });
  }
  process.stdout.write(`\n${formatReport(results)}`);
  const failed = failedChecks(results);
  for (const f of failed) process.stdout.write(`FAILED ${f}\n`);
  process.stdout.write(failed.length === 0 ? 'chaos: every invariant held\n' : `chaos: ${failed.length} invariant(s) failed\n`);
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
