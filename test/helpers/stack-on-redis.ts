import type { Server } from 'node:http';
import { pino } from 'pino';
import { createApp } from '../../api/app.js';
import type { ApiDeps } from '../../api/deps.js';
import { httpCsfClient } from '../../shared/adapters/csf/http-csf-client.js';
import { smtpMailer } from '../../shared/adapters/email/smtp-mailer.js';
import { swPacClient } from '../../shared/adapters/pac/sw-pac-client.js';
import { loadConfig, type Config } from '../../shared/platform/config.js';
import { checkRedis } from '../../shared/platform/check-services.js';
import type { Db, DbHandles } from '../../shared/platform/db.js';
import { QUEUES } from '../../shared/platform/jobs.js';
import { createProducers, type Producers } from '../../shared/platform/queues.js';
import { shardPrefixes } from '../../shared/platform/queue-shards.js';
import { connectFailFast, serviceKeyPrefix, type RedisClient } from '../../shared/platform/redis.js';
import { satCatalogs } from '../../shared/sat/catalogs.js';
import { startWorkers, type RunningWorkers } from '../../workers/index.js';
import { harness } from './harness.js';
import { removeKeysMatching } from './redis-keys.js';

/**
 * A second API and its workers, wired as a process's composition root does, on another Redis (TLS, a
 * cluster) than the harness's, or another database: same fakes (CSF, PAC, SMTP), its own queue prefix.
 */
export interface StackOnRedis {
  baseUrl: string;
  config: Readonly<Config>;
  producers: Producers;
  /** The raw connection (no key prefix) the producers share. */
  redis: RedisClient;
  workers: RunningWorkers;
  close(): Promise<void>;
}

/** The test environment with these variables on top, read as a process would read them. */
export function configWith(env: Record<string, string>): Readonly<Config> {
  return loadConfig({ ...process.env, ...env });
}

/**
 * `databases`: the API's, the harness's by default; a test with a cluster of its own (a primary and its replica)
 * passes them, and the workers' handle to that primary, its own pool as in a process of their own.
 */
export async function startStackOn(cfg: Readonly<Config>, databases: DbHandles = harness().deps, workersDb: Db = databases.db): Promise<StackOnRedis> {
  const h = harness();
  await checkRedis(cfg);
  const serviceRedis = await connectFailFast(cfg, { keyPrefix: serviceKeyPrefix(cfg.queuePrefix) });
  const redis = await connectFailFast(cfg);
  const producers = await createProducers(redis, cfg);
  const logger = pino({ level: 'silent' });
  const mailer = smtpMailer({ url: h.smtp.url, from: cfg.mailFrom, timeoutMs: cfg.smtpTimeoutMs });
  const csf = httpCsfClient(h.csf.url, cfg.csfTimeoutMs);
  const workers = await startWorkers({
    config: cfg,
    db: workersDb,
    logger,
    producers,
    csf,
    pac: swPacClient(h.pac.url, h.pac.token, cfg.pacTimeoutMs, `${h.pac.url}/ConsultaCFDIService.svc`),
    mailer,
    files: h.deps.files,
  });
  const deps: ApiDeps = { config: cfg, db: databases.db, readDb: databases.readDb, redis: serviceRedis, producers, catalogs: satCatalogs(), logger, csf, files: h.deps.files };
  const server: Server = createApp(deps).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    config: cfg,
    producers,
    redis,
    workers,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await workers.close();
      mailer.close();
      for (const name of Object.values(QUEUES)) for (const queue of producers.queues(name)) await queue.obliterate({ force: true }).catch(() => undefined);
      await producers.close();
      for (const prefix of new Set([cfg.queuePrefix, ...shardPrefixes(cfg.queuePrefix, cfg.queueShards)])) await removeKeysMatching(redis, `${prefix}:*`).catch(() => undefined);
      // The service's keys and the inboxes, under the prefix without its tag on a cluster.
      await removeKeysMatching(redis, `${serviceKeyPrefix(cfg.queuePrefix)}*`).catch(() => undefined);
      redis.disconnect();
      serviceRedis.disconnect();
    },
  };
}
