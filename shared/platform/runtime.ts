import { armCrashAfterCommit } from './crash-after-commit.js';
import type { Config } from './config.js';
import { checkPostgres, checkReadReplica, checkRedis, StartupHint } from './check-services.js';
import { closeDb, db, migrateLatest, readDb, type Db } from './db.js';
import { createLogger, type Logger } from './logger.js';
import { createProducers, type Producers } from './queues.js';
import { connectFailFast, serviceKeyPrefix, type RedisClient } from './redis.js';

/** The connections a process holds, opened in order and closed in reverse on shutdown. */
export interface Runtime {
  config: Readonly<Config>;
  db: Db;
  /** Reads that may lag a moment (shared/platform/db.ts's readDb): DATABASE_READ_URL's replica, else `db` itself. */
  readDb: Db;
  /** The service's own keys, under serviceKeyPrefix (the queues have their own connection). */
  redis: RedisClient;
  producers: Producers;
  logger: Logger;
  close(): Promise<void>;
}

/** A process's composition root opens its connections here, from the configuration it read. */
export async function openRuntime(cfg: Readonly<Config>, options: { migrate: boolean }): Promise<Runtime> {
  const logger = createLogger(cfg.logLevel, cfg.logFormat);
  armCrashAfterCommit(cfg.crashAfterCommit);
  await checkPostgres(cfg.databaseUrl);
  if (cfg.databaseReadUrl !== '') await checkReadReplica(cfg.databaseReadUrl);
  await checkRedis(cfg);
  const database = db();
  if (options.migrate) {
    const applied = await migrateLatest(database);
    if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
  }
  const redis = await connectFailFast(cfg, { keyPrefix: serviceKeyPrefix(cfg.queuePrefix) });
  const queueConnection = await connectFailFast(cfg);
  const producers = await createProducers(queueConnection, cfg);
  return {
    config: cfg,
    db: database,
    readDb: readDb(),
    redis,
    producers,
    logger,
    async close() {
      await producers.close();
      queueConnection.disconnect();
      redis.disconnect();
      await closeDb();
    },
  };
}

/** For entry points: a StartupHint (service unreachable, port busy) is one line on stderr and exit code 1, never a stack trace. */
export function exitOnStartupError(err: unknown): never {
  if (err instanceof StartupHint) {
    process.stderr.write(`${err.message}\n`);
  } else {
    createLogger('info').fatal({ err }, 'startup failed');
  }
  process.exit(1);
}

/**
 * SIGTERM/SIGINT: stop taking work, let running work finish, close connections, exit. Past the
 * deadline the process exits anyway: a job still running loses its lock and BullMQ hands it to another
 * worker as stalled; its side effects are idempotent (the PAC returns the earlier stamp).
 */
export function onShutdown(runtime: Pick<Runtime, 'config' | 'logger'>, close: () => Promise<void>): void {
  const { logger } = runtime;
  const deadlineMs = runtime.config.shutdownTimeoutMs;
  let closing = false;
  const handler = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.warn({ deadline_ms: deadlineMs }, 'shutdown deadline passed; exiting with work handed back');
      process.exit(1);
    }, deadlineMs).unref();
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => handler('SIGTERM'));
  process.once('SIGINT', () => handler('SIGINT'));
}
