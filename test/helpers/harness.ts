import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createApp } from '../../api/app.js';
import type { ApiDeps } from '../../api/deps.js';
import { bootstrapAccount, type BootstrapResult } from '../../cli/bootstrap.js';
import { config } from '../../shared/platform/config.js';
import { closeDb, db, ensureDatabase, migrateLatest, readDb } from '../../shared/platform/db.js';
import { createProducers, type Producers } from '../../shared/platform/queues.js';
import { connectFailFast, serviceKeyPrefix, type RedisClient } from '../../shared/platform/redis.js';
import { satCatalogs } from '../../shared/sat/catalogs.js';
import { startWorkers, type RunningWorkers } from '../../workers/index.js';
import { startFakeCsfServer, type FakeCsfServer } from '../../fakes/csf-server.js';
import { httpCsfClient } from '../../shared/adapters/csf/http-csf-client.js';
import { startFakePacServer, type FakePacServer } from '../../fakes/pac-server.js';
import { swPacClient } from '../../shared/adapters/pac/sw-pac-client.js';
import { measuredCsfClient } from '../../shared/adapters/csf/measured-csf-client.js';
import { measuredPacClient } from '../../shared/adapters/pac/measured-pac-client.js';
import { QUEUES } from '../../shared/platform/jobs.js';
import { startFakeSmtpServer, type FakeSmtpServer } from '../../fakes/smtp-server.js';
import { smtpMailer } from '../../shared/adapters/email/smtp-mailer.js';
import { rm } from 'node:fs/promises';
import { fileStoreFromConfig } from '../../shared/platform/storage/file-store-from-config.js';
import { removeKeysMatching } from './redis-keys.js';

/**
 * One real stack per test run: PostgreSQL (fresh schema), Redis, BullMQ workers and the API on
 * an ephemeral loopback port. Logs are captured in memory so tests can read what was logged.
 */
export interface Harness {
  baseUrl: string;
  deps: ApiDeps;
  producers: Producers;
  redis: RedisClient;
  logs: string[];
  /** The fake CSF service the workers call over HTTP; tests script its answers. */
  csf: FakeCsfServer;
  /** The fake PAC the stamp worker calls over HTTP, with a token it got from the fake's user and password; tests script its answers. */
  pac: FakePacServer;
  /** The fake SMTP server the e-mail worker delivers to. */
  smtp: FakeSmtpServer;
  bootstrap(name?: string): Promise<BootstrapResult>;
  close(): Promise<void>;
}

let current: Harness | undefined;
let counter = 0;

export function harness(): Harness {
  if (!current) throw new Error('the test harness is not running (test/setup.ts starts it)');
  return current;
}

export async function startHarness(): Promise<Harness> {
  const cfg = config();
  await ensureDatabase(cfg.databaseUrl);
  await db().raw('DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;');
  await migrateLatest(db());

  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = pino({ level: 'info' }, sink);
  const redis = await connectFailFast(cfg);
  const serviceRedis = await connectFailFast(cfg, { keyPrefix: serviceKeyPrefix(cfg.queuePrefix) });
  const producers = await createProducers(redis, cfg);
  const csf = await startFakeCsfServer();
  const pac = await startFakePacServer();
  const smtp = await startFakeSmtpServer();
  const mailer = smtpMailer({ url: smtp.url, from: cfg.mailFrom, timeoutMs: cfg.smtpTimeoutMs });
  const files = fileStoreFromConfig(cfg, db());
  const workers: RunningWorkers = await startWorkers({
    config: cfg,
    db: db(),
    logger,
    producers,
    csf: measuredCsfClient(httpCsfClient(csf.url, cfg.csfTimeoutMs)),
    // The service authenticates itself with the account's user and password, as with PAC_USER and PAC_PASSWORD.
    pac: measuredPacClient(swPacClient(pac.url, { ...pac.credentials }, cfg.pacTimeoutMs, `${pac.url}/ConsultaCFDIService.svc`)),
    mailer,
    files,
  });
  const deps: ApiDeps = {
    config: cfg,
    db: db(),
    readDb: readDb(),
    redis: serviceRedis,
    producers,
    catalogs: satCatalogs(),
    logger,
    csf: measuredCsfClient(httpCsfClient(csf.url, cfg.csfTimeoutMs)),
    files,
  };
  const server: Server = createApp(deps).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');

  current = {
    baseUrl: `http://127.0.0.1:${address.port}`,
    deps,
    producers,
    redis,
    logs,
    csf,
    pac,
    smtp,
    async bootstrap(name?: string) {
      const n = ++counter;
      const account = await bootstrapAccount(db(), cfg, name ?? `test-${process.pid}-${n}`);
      // Every test account is SAT's one test RFC selling the same sale to the same buyer: a Serie of its own
      // keeps two tests' invoices from being the same document (the PAC would answer the second with the
      // first's stamp and the job would seal again, a PAC call more than the test counts).
      await db()('merchant_csds')
        .where({ merchant_id: account.merchantId })
        .update({ serial_number_prefix: `T${n}` });
      return account;
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await workers.close();
      await csf.close();
      await pac.close();
      mailer.close();
      await smtp.close();
      for (const name of Object.values(QUEUES))
        await producers
          .queue(name)
          .obliterate({ force: true })
          .catch(() => undefined);
      await producers.close();
      // The run's own keys (idempotency cache, counters, inboxes) go with it: the Redis is shared with the machine.
      await removeKeysMatching(redis, `${serviceKeyPrefix(cfg.queuePrefix)}*`).catch(() => undefined);
      redis.disconnect();
      serviceRedis.disconnect();
      await closeDb();
      await rm(cfg.fileStoreDir, { recursive: true, force: true });
      current = undefined;
    },
  };
  return current;
}
