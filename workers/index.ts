import { Worker, type Job } from 'bullmq';
import type { Config } from '../shared/platform/config.js';
import type { Db } from '../shared/platform/db.js';
import type { CsfClient } from '../shared/adapters/csf/csf-client.js';
import { csfClientFromConfig } from '../shared/adapters/csf/csf-client-from-config.js';
import { JOBS, QUEUES, type JobName, type JobTypes, type QueueName } from '../shared/platform/jobs.js';
import type { Logger } from '../shared/platform/logger.js';
import type { Producers } from '../shared/platform/queues.js';
import { bullmqConnection, connectFailFast, serviceKeyPrefix } from '../shared/platform/redis.js';
import { shardPrefixes } from '../shared/platform/queue-shards.js';
import { principalsChanged } from '../shared/platform/principal-generation.js';
import { expireDueQrsJob } from './expire-due-qrs.js';
import { planExpiriesJob } from './plan-expiries.js';
import { renderLaneJob, renderQrJob } from './render-qr.js';
import { RenderLaneConsumer } from '../shared/platform/render-lane.js';
import { satCatalogs } from '../shared/sat/catalogs.js';
import { syncIssuerJob, type SyncIssuerDeps } from './sync-issuer.js';
import { sweepLostSyncsJob } from './sweep-lost-syncs.js';
import type { PacClient } from '../shared/adapters/pac/pac-client.js';
import { pacClientFromConfig } from '../shared/adapters/pac/pac-client-from-config.js';
import type { FileStore } from '../shared/platform/storage/file-store.js';
import { fileStoreFromConfig } from '../shared/platform/storage/file-store-from-config.js';
import { stampInvoiceJob, type StampDeps } from './stamp-invoice.js';
import { stampInvoicesJob } from './stamp-invoices.js';
import { sweepStampingJob } from './sweep-stamping.js';
import { settleOfflineClaimsJob } from './settle-offline-claims.js';
import { emailOfflineClaimJob } from './email-offline-claim.js';
import { sweepInvoiceFollowUpsJob } from './sweep-invoice-follow-ups.js';
import { emailInvoiceJob, type EmailDeps } from './email-invoice.js';
import { emailCancellationJob } from './email-cancellation.js';
import type { Mailer } from '../shared/adapters/email/invoice-mailer.js';
import { mailerFromConfig } from '../shared/adapters/email/mailer-from-config.js';
import { cancelInvoiceJob, type CancelDeps } from './cancel-invoice.js';
import { pollCancellationsJob } from './poll-cancellations.js';
import { dispatchWebhooksJob } from './dispatch-webhooks.js';
import { keepPartitionsJob } from './keep-partitions.js';
import { issueGlobalInvoicesJob } from './issue-global-invoices.js';
import { announceExpiringCsds } from '../shared/repositories/merchant-csds.js';
import { deliverWebhookJob, type WebhookDeps } from './deliver-webhook.js';
import { httpWebhookClient, type WebhookClient } from '../shared/webhooks/webhook-client.js';
import { encryptionKeyring } from '../shared/platform/crypto/encrypt-at-rest.js';
import { measureJobs, measureRenderLaneJob } from '../shared/platform/metrics/measure-jobs.js';
import { keepJobSchedulers } from './keep-job-schedulers.js';
import { buildInvoiceExportJob, sweepInvoiceExportsJob } from './build-invoice-export.js';
import { logOtherFailures, withOutcomeLog, withRenderLaneLog } from './log-job-outcomes.js';
import { alarmedPacClient } from '../shared/adapters/pac/pac-credentials-alarm.js';
import { PAUSABLE, pausingOnPac } from './pause-on-pac.js';

export interface WorkerDeps {
  config: Readonly<Config>;
  db: Db;
  logger: Logger;
  producers: Producers;
  /** Defaults to csfClientFromConfig(config). */
  csf?: CsfClient;
  /** Defaults to pacClientFromConfig(config). */
  pac?: PacClient;
  /** Defaults to mailerFromConfig(config). */
  mailer?: Mailer;
  /** Defaults to fileStoreFromConfig(config). */
  files?: FileStore;
  /** Defaults to an HTTP client with WEBHOOK_TIMEOUT_MS. */
  webhooks?: WebhookClient;
}

export interface RunningWorkers {
  workers: Worker[];
  close(): Promise<void>;
}

interface JobDeps {
  sync: SyncIssuerDeps;
  stamp: StampDeps;
  email: EmailDeps;
  cancel: CancelDeps;
  webhooks: WebhookDeps;
}

/** A handler of job N: its payload in, its declared result out (shared/platform/jobs.ts, JobTypes). */
type JobHandler<N extends JobName> = (job: Job<JobTypes[N]['data'], JobTypes[N]['result'], N>) => Promise<JobTypes[N]['result']> | JobTypes[N]['result'];

/**
 * Every job's handler, one entry per job of the catalog (shared/platform/jobs.ts): a job without a handler, or a
 * handler answering another result, does not compile.
 */
function jobHandlers(deps: WorkerDeps, { sync, stamp, email, cancel, webhooks }: JobDeps): { [N in JobName]: JobHandler<N> } {
  return {
    'render-qr': (job) => renderQrJob(deps.producers, job),
    'expire-due-qrs': () => expireDueQrsJob(deps.db),
    'plan-expiries': () => planExpiriesJob(deps.db, deps.producers),
    // The sweep (every EXPIRY_SWEEP_MS) expires what a bucket lost with Redis (FLUSHALL, failover) missed: the same work.
    'sweep-expired-qrs': () => expireDueQrsJob(deps.db),
    'sync-issuer': (job) => syncIssuerJob(sync, job),
    'sweep-lost-syncs': () => sweepLostSyncsJob(deps.db, deps.producers),
    'stamp-invoice': (job) => stampInvoiceJob(stamp, job),
    'stamp-invoices': (job) => stampInvoicesJob({ ...email, ...stamp, pacAttempts: deps.config.pacAttempts, pacBackoffMs: deps.config.pacBackoffMs }, job),
    'sweep-stamping': () => sweepStampingJob(deps.db, deps.producers, deps.config),
    'settle-offline-claims': (job) => settleOfflineClaimsJob({ db: deps.db, producers: deps.producers, catalogs: stamp.catalogs }, job.data),
    'sweep-invoice-follow-ups': () => sweepInvoiceFollowUpsJob(deps.db, deps.producers, deps.config),
    'email-invoice': (job) => emailInvoiceJob(email, job),
    'email-cancellation': (job) => emailCancellationJob(email, job),
    'email-offline-claim': (job) => emailOfflineClaimJob({ ...email, perAddressPerDay: deps.config.offlineClaimEmailsPerAddressPerDay }, job),
    'cancel-invoice': (job) => cancelInvoiceJob(cancel, job),
    'poll-cancellations': () => pollCancellationsJob({ ...cancel, producers: deps.producers }),
    'dispatch-webhooks': () => dispatchWebhooksJob(deps.db, deps.producers, deps.config),
    'deliver-webhook': (job) => deliverWebhookJob(webhooks, job),
    'issue-global-invoices': () => issueGlobalInvoicesJob(deps.db, deps.producers, deps.config),
    'announce-expiring-csds': async () => ({ announced: await announceExpiringCsds(deps.db) }),
    'keep-partitions': () => keepPartitionsJob(deps.db, deps.config, new Date(), deps.logger),
    'build-invoice-export': (job) => buildInvoiceExportJob(email, job),
    'sweep-invoice-exports': () => sweepInvoiceExportsJob(email, deps.producers),
  };
}

/** The processor of one queue: the catalog's handler of each job that belongs to it. */
function processorFor(queue: QueueName, handlers: { [N in JobName]: JobHandler<N> }) {
  return async (job: Job): Promise<unknown> => {
    const name = job.name as JobName;
    if (!(name in handlers) || JOBS[name].queue !== queue) throw new Error(`no handler for job ${job.name} on queue ${queue}`);
    return (handlers[name] as JobHandler<JobName>)(job as Job<JobTypes[JobName]['data'], JobTypes[JobName]['result'], JobName>);
  };
}

/**
 * Seconds a worker waits on an empty queue before it asks again (BullMQ's drainDelay, 5 by default): each ask
 * is a BZPOPMIN and a fetch script of about 8 commands, per queue and worker process, whether or not anything
 * comes (issue #40: about 14 commands a second per idle worker process). A new job wakes the wait at once (its
 * marker), and a queue with delayed jobs wakes for them, so a longer wait delays nothing; BullMQ caps any wait
 * at 10 s.
 */
const IDLE_WAIT_S = 10;

export async function startWorkers(deps: WorkerDeps): Promise<RunningWorkers> {
  const connection = bullmqConnection(deps.config);
  // The service's own keys (the principal generation), on a connection of their own, as the API's.
  const service = await connectFailFast(deps.config, { keyPrefix: serviceKeyPrefix(deps.config.queuePrefix) });
  const sync: SyncIssuerDeps = {
    db: deps.db,
    csf: deps.csf ?? csfClientFromConfig(deps.config),
    catalogs: satCatalogs(),
    principalsChanged: () => principalsChanged(service, deps.logger),
  };
  const keyring = encryptionKeyring(deps.config);
  const pac = alarmedPacClient(deps.pac ?? pacClientFromConfig(deps.config), service, deps.logger);
  const stamp: StampDeps = {
    db: deps.db,
    pac,
    files: deps.files ?? fileStoreFromConfig(deps.config, deps.db),
    catalogs: satCatalogs(),
    producers: deps.producers,
    keyring,
  };
  // A mailer built here is closed here; one passed in belongs to the caller.
  let ownMailer: ReturnType<typeof mailerFromConfig> | undefined;
  const mailer = deps.mailer ?? (ownMailer = mailerFromConfig(deps.config));
  const email: EmailDeps = {
    db: deps.db,
    files: stamp.files,
    catalogs: stamp.catalogs,
    mailer,
    publicBaseUrl: deps.config.publicBaseUrl,
    urlSigningKey: deps.config.urlSigningKey,
  };
  const cancel: CancelDeps = {
    db: deps.db,
    pac,
    files: stamp.files,
    keyring,
    producers: deps.producers,
    bounds: { notFoundGraceMs: deps.config.satNotFoundGraceMs, pendingMaxMs: deps.config.cancellationPendingMaxMs },
  };
  const webhooks: WebhookDeps = {
    db: deps.db,
    client: deps.webhooks ?? httpWebhookClient(deps.config.webhookTimeoutMs, { allowPrivate: deps.config.webhookAllowPrivate }),
    keyring,
  };
  const handlers = jobHandlers(deps, { sync, stamp, email, cancel, webhooks });
  // The queues whose jobs present the PAC's credentials pause, all at once, while the PAC refuses them or throttles the account.
  const pacPauses = { credentialsMs: deps.config.pacAuthRetryMs, throttledMs: deps.config.pacBackoffMs };
  const pausable = new Set<QueueName>([QUEUES.stamp, QUEUES.cancel]);
  // One Worker per queue and shard this process consumes (WORKER_SHARDS, else all of QUEUE_SHARDS): a Worker
  // reads one queue of one prefix, and each shard's queues are under a prefix of their own.
  const prefixes = shardPrefixes(deps.config.queuePrefix, deps.config.queueShards);
  const consumed = deps.config.workerShards.length > 0 ? [...new Set(deps.config.workerShards)] : prefixes.map((_, shard) => shard);
  const workers = Object.values(QUEUES).flatMap((queue) => {
    const processor = processorFor(queue, handlers);
    return consumed.map((shard) => {
      const paused = pausable.has(queue) ? pausingOnPac(deps.producers.queues(queue), pacPauses, deps.logger, processor) : processor;
      const worker = new Worker(queue, withOutcomeLog(queue, deps.logger, paused), {
        connection,
        prefix: prefixes[shard]!,
        concurrency: deps.config.workerConcurrency,
        drainDelay: IDLE_WAIT_S,
        ...(pausable.has(queue) ? PAUSABLE : {}),
      });
      worker.on('error', (err) => deps.logger.error({ err, queue, shard }, 'worker error'));
      logOtherFailures(worker, queue, deps.logger);
      measureJobs(worker, queue);
      return worker;
    });
  });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  // The sales' renders (issue #40): a list per shard, not a BullMQ queue (shared/platform/render-lane.ts); this process takes those of its shards.
  // With several shards, the consumers of shard 0 also take the lane of the prefix itself, where API processes
  // from before the shards' lanes push (a rolling deploy).
  const lanes = consumed.map((shard) => prefixes[shard]!);
  if (prefixes.length > 1 && consumed.includes(0)) lanes.push(deps.config.queuePrefix);
  const renderLane = new RenderLaneConsumer(
    lanes,
    deps.config,
    (job) => withRenderLaneLog(deps.logger, job, () => measureRenderLaneJob(() => renderLaneJob(deps.producers, job))).then(() => undefined),
    (err) => deps.logger.warn({ err, queue: 'render-lane' }, 'render lane entry not a job'),
  );
  const schedulers = await keepJobSchedulers(deps.producers, deps.config, deps.logger);
  return {
    workers,
    async close() {
      schedulers.stop();
      await renderLane.close();
      await Promise.all(workers.map((w) => w.close()));
      ownMailer?.close();
      service.disconnect();
    },
  };
}
