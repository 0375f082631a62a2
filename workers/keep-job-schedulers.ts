import type { Config } from '../shared/config.js';
import { JOB_QUEUE, jobId, type JobName } from '../shared/jobs.js';
import type { Logger } from '../shared/logger.js';
import type { Producers } from '../shared/queues.js';
import { EXPIRY_PLAN_EVERY_MS } from '../shared/qr/expiry-buckets.js';

interface SchedulerSpec {
  id: string;
  name: JobName;
  every: number;
}

function schedulerSpecs(config: Readonly<Config>): SchedulerSpec[] {
  return [
    { id: jobId.sweepExpired, name: 'sweep-expired-qrs', every: config.expirySweepMs },
    { id: jobId.planExpiries, name: 'plan-expiries', every: EXPIRY_PLAN_EVERY_MS },
    { id: jobId.sweepStamping, name: 'sweep-stamping', every: config.stampSweepMs },
    { id: jobId.sweepInvoiceFollowUps, name: 'sweep-invoice-follow-ups', every: config.stampSweepMs },
    // Every minute: a synchronization whose job was lost ends FAILED instead of RUNNING forever.
    { id: jobId.sweepLostSyncs, name: 'sweep-lost-syncs', every: 60_000 },
    { id: jobId.pollCancellations, name: 'poll-cancellations', every: config.cancellationPollMs },
    { id: jobId.issueGlobalInvoices, name: 'issue-global-invoices', every: config.globalInvoiceCheckMs },
    // Every 6 hours: a CSD about to expire stops all invoicing silently, so its merchant hears of it in time.
    { id: jobId.announceExpiringCsds, name: 'announce-expiring-csds', every: 6 * 3600_000 },
    { id: jobId.dispatchWebhooks, name: 'dispatch-webhooks', every: config.webhookDispatchMs },
  ];
}

/**
 * Upserts the sweeps' job schedulers, then keeps them there. Issue #8 (`npm run chaos`, redis-flush): the
 * schedulers live in Redis, so a Redis that lost its data (FLUSHALL, a restart without persistence) lost
 * them too and no sweep ran again until a worker restarted: expiries and stamps whose jobs were lost with
 * it stayed undone. Every min(30 s, the shortest sweep period) a missing scheduler is upserted again (an
 * `every` scheduler runs at once when created); present ones are left alone, so periods are not reset.
 */
export async function keepJobSchedulers(producers: Producers, config: Readonly<Config>, logger: Logger): Promise<{ stop(): void }> {
  const specs = schedulerSpecs(config);
  const upsert = (s: SchedulerSpec) =>
    producers.queue(JOB_QUEUE[s.name]).upsertJobScheduler(s.id, { every: s.every }, { name: s.name, data: {}, opts: { removeOnComplete: true, removeOnFail: 100 } });
  for (const s of specs) await upsert(s);
  let checking = false;
  const timer = setInterval(
    () => {
      if (checking) return;
      checking = true;
      void (async () => {
        for (const s of specs) {
          if (await producers.queue(JOB_QUEUE[s.name]).getJobScheduler(s.id)) continue;
          await upsert(s);
          logger.warn({ scheduler: s.id }, 'job scheduler was missing from Redis; created again');
        }
      })()
        .catch((err: unknown) => logger.warn({ err }, 'job schedulers not checked (Redis unavailable?)'))
        .finally(() => {
          checking = false;
        });
    },
    Math.min(30_000, config.expirySweepMs, config.stampSweepMs),
  );
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
