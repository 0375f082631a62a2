/**
 * The one list of queues, job names and payload types, and the job catalog (JOBS). Payloads carry ids and
 * short values, never images, XML, certificates or passwords.
 */
import { createHash } from 'node:crypto';
import type { JobsOptions } from 'bullmq';
import type { Config } from './config.js';
import { EXPIRY_PLAN_EVERY_MS } from '../domain/expiry-buckets.js';

export const QUEUES = {
  render: 'render',
  expiry: 'expiry',
  csfSync: 'csf-sync',
  stamp: 'stamp',
  email: 'email',
  cancel: 'cancel',
  webhooks: 'webhooks',
  globalInvoice: 'global-invoice',
  /** ZIPs of CFDIs (issue #32): long jobs, on a queue of their own so they never hold up stamping or e-mail. */
  exports: 'exports',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/**
 * The QRs one API process asked for within a moment, rendered by one job (api/qrs/render-qr.ts): a job's
 * round trips through Redis cost more than rendering a QR, so they are shared.
 */
export interface RenderQrPayload {
  qrs: {
    qrId: string;
    /** The deep link to encode: printed on paper anyway, so not a secret. */
    content: string;
  }[];
  /**
   * The inbox of the API process that waits (shared/platform/job-inbox.ts): the images go there, to that
   * process alone. Absent in jobs from an API process older than issue #30: the images are then the job's result.
   */
  replyTo?: string;
}
/** Base64 PNGs in the order of the payload's QRs; the API stores each with its transaction. */
export type RenderQrResult = { pngs: string[] };
/** The job's own result: how many images went to the inbox, or (no `replyTo`) the images themselves. */
export type RenderQrJobResult = { replied: number } | RenderQrResult;

/** One expiry bucket: every QR due by `dueAt` (epoch seconds) is expired (shared/domain/expiry-buckets.ts). */
export interface ExpireDuePayload {
  dueAt: number;
}

export type SweepExpiredPayload = Record<string, never>;

export interface SyncIssuerPayload {
  issuerId: string;
}
export type SyncIssuerResult = { businessName: string; taxRegimeCode: string; zip: string };

export interface InvoicePayload {
  invoiceId: string;
}

/**
 * The invoices of one stamp batch (issue #40): the confirmations one API process accepted within a few
 * milliseconds (shared/invoices/stamp-batcher.ts). The first id names the job.
 */
export interface InvoicesPayload {
  invoiceIds: string[];
}

export interface CancelInvoicePayload {
  cancellationId: string;
}
/** `qrId` and the PAC's refusal `code` are for the job's log line (workers/log-job-outcomes.ts). */
/** `not-found`: acknowledged, but SAT's status service does not know the CFDI yet; `code` of a refusal: the cause's (SW's messageDetail), else SW's own. */
export type CancelInvoiceResult = {
  outcome: 'cancelled' | 'pending' | 'not-found' | 'needs-attention' | 'refused' | 'not-requested';
  uuid?: string;
  qrId?: string | null;
  code?: string;
};

/** A buyer's claim on an offline ticket: the ticket's key and POS sale id (issue #33). */
export interface OfflineClaimPayload {
  keyId: string;
  saleId: string;
}

/** An export of CFDIs to build into a ZIP (issue #32): its row holds the scope and filters. */
export interface InvoiceExportPayload {
  exportId: string;
}
export type BuildInvoiceExportResult = { outcome: 'ready'; files: number; bytes: number } | { outcome: 'not-running' };

export interface DeliverWebhookPayload {
  deliveryId: string;
}

/** `qrId` and the refusal's `code` are for the job's log line (workers/log-job-outcomes.ts). */
/** `withheld`: the PAC says it stamped the invoice and withheld the stamp through every attempt (markStampWithheld). */
export type StampInvoiceResult = { outcome: 'stamped' | 'already-stamped' | 'refused' | 'not-stamping' | 'withheld'; uuid?: string; qrId?: string | null; code?: string };
/** What became of a buyer's mail sent by a stamp batch: sent, `retrying` in an `email-invoice` job of its own (the server refused for now), refused for good. */
export type BatchMailOutcome = 'sent' | 'retrying' | 'refused';
/**
 * A stamp batch's outcome per invoice, in the payload's order: a StampInvoiceResult, `retrying` when the PAC
 * did not answer and the invoice went on to a `stamp-invoice` job of its own (its retries), `not-found` for an
 * id without a row; `email`, for one it recorded, what became of its buyer's mail.
 */
export type StampInvoicesResult = {
  invoices: (Omit<StampInvoiceResult, 'outcome'> & { invoiceId: string; outcome: StampInvoiceResult['outcome'] | 'retrying' | 'not-found'; email?: BatchMailOutcome })[];
};
export interface JobTypes {
  'render-qr': { queue: typeof QUEUES.render; data: RenderQrPayload; result: RenderQrJobResult };
  'expire-due-qrs': { queue: typeof QUEUES.expiry; data: ExpireDuePayload; result: { expired: number } };
  'plan-expiries': { queue: typeof QUEUES.expiry; data: Record<string, never>; result: { buckets: number } };
  'sweep-expired-qrs': { queue: typeof QUEUES.expiry; data: SweepExpiredPayload; result: { expired: number } };
  'sync-issuer': { queue: typeof QUEUES.csfSync; data: SyncIssuerPayload; result: SyncIssuerResult };
  'sweep-lost-syncs': { queue: typeof QUEUES.csfSync; data: Record<string, never>; result: { failed: number } };
  'stamp-invoice': { queue: typeof QUEUES.stamp; data: InvoicePayload; result: StampInvoiceResult };
  'stamp-invoices': { queue: typeof QUEUES.stamp; data: InvoicesPayload; result: StampInvoicesResult };
  'sweep-stamping': { queue: typeof QUEUES.stamp; data: Record<string, never>; result: { requeued: number; stalled: number } };
  'settle-offline-claims': { queue: typeof QUEUES.stamp; data: { transactionId?: string }; result: { confirmed: number; refused: number } };
  'sweep-invoice-follow-ups': { queue: typeof QUEUES.email; data: Record<string, never>; result: { emails: number } };
  'email-invoice': { queue: typeof QUEUES.email; data: InvoicePayload & { to?: string }; result: { messageId: string } | { outcome: 'already-sent' } };
  'email-cancellation': { queue: typeof QUEUES.email; data: InvoicePayload; result: { outcome: 'sent' | 'no-address' } };
  'email-offline-claim': { queue: typeof QUEUES.email; data: OfflineClaimPayload; result: { outcome: 'sent' | 'limited' } };
  'cancel-invoice': { queue: typeof QUEUES.cancel; data: CancelInvoicePayload; result: CancelInvoiceResult };
  'poll-cancellations': { queue: typeof QUEUES.cancel; data: Record<string, never>; result: { resolved: number; requeued: number; needsAttention: number } };
  'dispatch-webhooks': { queue: typeof QUEUES.webhooks; data: Record<string, never>; result: { queued: number; failed: number } };
  'deliver-webhook': { queue: typeof QUEUES.webhooks; data: DeliverWebhookPayload; result: { status: 'delivered' | 'skipped' } };
  'issue-global-invoices': { queue: typeof QUEUES.globalInvoice; data: Record<string, never>; result: { invoices: number } };
  'announce-expiring-csds': { queue: typeof QUEUES.webhooks; data: Record<string, never>; result: { announced: number } };
  'keep-partitions': {
    queue: typeof QUEUES.webhooks;
    data: Record<string, never>;
    result: { created: number; dropped: number; saleMonths: { created: number; dropped: number; held: number } };
  };
  'build-invoice-export': { queue: typeof QUEUES.exports; data: InvoiceExportPayload; result: BuildInvoiceExportResult };
  'sweep-invoice-exports': { queue: typeof QUEUES.exports; data: Record<string, never>; result: { removed: number; failed: number } };
}

export type JobName = keyof JobTypes;

/** What jobs' options and periods depend on: the service's settings. */
export type JobSettings = Pick<
  Config,
  | 'renderTimeoutMs'
  | 'pacAttempts'
  | 'pacBackoffMs'
  | 'csfAttempts'
  | 'csfBackoffMs'
  | 'emailBackoffMs'
  | 'webhookAttempts'
  | 'webhookBackoffMs'
  | 'expirySweepMs'
  | 'stampSweepMs'
  | 'cancellationPollMs'
  | 'globalInvoiceCheckMs'
  | 'webhookDispatchMs'
>;

/** One job, declared once: its queue, its id rule, its options, and its period when it runs by itself. */
export interface JobSpec<N extends JobName> {
  queue: JobTypes[N]['queue'];
  /** The job's id, where a duplicate must not happen (undefined: BullMQ numbers it). */
  id?: (data: JobTypes[N]['data']) => string | undefined;
  options: (settings: Readonly<JobSettings>, data: JobTypes[N]['data'], now: number) => Omit<JobsOptions, 'jobId'>;
  /** A job the workers' schedulers run every so many ms (workers/keep-job-schedulers.ts); its id is its scheduler's. */
  every?: (settings: Readonly<JobSettings>) => number;
  /** What picks its queue shard when that is not its id (shardKeyOf): a job without an id, or deduplicated by another key. */
  shardKey?: (data: JobTypes[N]['data']) => string | undefined;
}

/**
 * The key whose hash picks a job's queue shard (shared/platform/queue-shards.ts, shardOf), or undefined for
 * shard 0. A job is added, deduplicated and looked up by id on one shard only, so the key is a function of what
 * identifies the job: its id (a render batch by its first QR, a stamp by its invoice, …), which spreads the jobs
 * evenly whatever the merchants' sizes, and keeps a render batch whole whichever stores its QRs are of. A
 * scheduled job (`every`) is on shard 0 with its scheduler, so it still runs once per period in the deployment.
 */
export function shardKeyOf<N extends JobName>(name: N, data: JobTypes[N]['data']): string | undefined {
  const spec: JobSpec<N> = JOBS[name];
  if (spec.shardKey) return spec.shardKey(data);
  return spec.every ? undefined : spec.id?.(data);
}

/** Kept an hour (the dashboard shows recent work), at most 1,000. */
const KEEP_DONE = { age: 3600, count: 1000 };

/** A job that calls the PAC: retries with exponential backoff; a sweep from PostgreSQL takes over after the last. */
const pacOptions = (s: Readonly<JobSettings>) => ({
  attempts: s.pacAttempts,
  backoff: { type: 'exponential', delay: s.pacBackoffMs },
  removeOnComplete: KEEP_DONE,
  removeOnFail: true,
});

/** An e-mail: six attempts with exponential backoff from EMAIL_BACKOFF_MS. */
const emailOptions = (s: Readonly<JobSettings>) => ({
  attempts: 6,
  backoff: { type: 'exponential', delay: s.emailBackoffMs },
  removeOnComplete: KEEP_DONE,
  removeOnFail: 100,
});

/** A scheduled sweep: its runs are not kept. */
const sweepOptions = () => ({ removeOnComplete: true, removeOnFail: 100 });

/** Seconds a finished render job is kept beyond the API's wait, for the waiter's last look at its timeout. */
const RENDER_KEEP_AFTER_WAIT_S = 5;

/**
 * Attempts of a render job (issue #38): one whose reply was lost to Redis (a failover, a broken connection)
 * renders again; one whose encoder threw does not (workers/render-qr.ts fails it for good). BullMQ records the
 * lost attempt once Redis answers again (its connection waits out a failover), so the next one runs on the new
 * master; the backoff is short because its request waits RENDER_TIMEOUT_MS in all.
 */
const RENDER_ATTEMPTS = 3;
const RENDER_BACKOFF_MS = 250;

/**
 * Seconds an inbox lives after its last reply (shared/platform/job-inbox.ts). A request waits for a reply
 * RENDER_TIMEOUT_MS at most (the render job is the only one a request waits for); past that the reply has
 * nobody to go to, and the inbox of a process that died goes with it.
 */
export const replyTtlSeconds = (s: Readonly<Pick<JobSettings, 'renderTimeoutMs'>>): number => Math.ceil(s.renderTimeoutMs / 1000) + RENDER_KEEP_AFTER_WAIT_S;

/** The one job catalog: producers add by name (shared/platform/queues.ts), the workers' registry is typed by it (workers/index.ts). */
export const JOBS: { [N in JobName]: JobSpec<N> } = {
  'render-qr': {
    queue: QUEUES.render,
    // Named after its first QR: the API knows the id its reply will carry before the add.
    id: (d) => jobId.renderQr(d.qrs[0]?.qrId ?? 'empty'),
    options: (s) => {
      const age = replyTtlSeconds(s);
      return { attempts: RENDER_ATTEMPTS, backoff: { type: 'exponential', delay: RENDER_BACKOFF_MS }, removeOnComplete: { age }, removeOnFail: { age } };
    },
  },
  'expire-due-qrs': {
    queue: QUEUES.expiry,
    id: (d) => jobId.expireDue(d.dueAt),
    options: (_s, d, now) => ({ delay: Math.max(0, d.dueAt * 1000 - now), attempts: 5, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: true, removeOnFail: 1000 }),
  },
  'plan-expiries': { queue: QUEUES.expiry, id: () => jobId.planExpiries, options: sweepOptions, every: () => EXPIRY_PLAN_EVERY_MS },
  'sweep-expired-qrs': { queue: QUEUES.expiry, id: () => jobId.sweepExpired, options: sweepOptions, every: (s) => s.expirySweepMs },
  'sync-issuer': {
    queue: QUEUES.csfSync,
    // Deduplicated by issuer (api/issuers/synchronize-issuer.ts gives each request its own candidate id).
    shardKey: (d) => jobId.syncIssuer(d.issuerId),
    options: (s, d) => ({
      deduplication: { id: jobId.syncIssuer(d.issuerId) },
      attempts: s.csfAttempts,
      backoff: { type: 'exponential', delay: s.csfBackoffMs, jitter: 0.5 },
      removeOnComplete: { count: 1000 },
      removeOnFail: { count: 1000 },
    }),
  },
  // Every minute: a synchronization whose job was lost ends FAILED instead of RUNNING forever.
  'sweep-lost-syncs': { queue: QUEUES.csfSync, id: () => jobId.sweepLostSyncs, options: sweepOptions, every: () => 60_000 },
  // One invoice: the sweep, an operator's retry, credit notes, complements, global invoices, a batch's invoice the
  // PAC did not answer, and jobs an older release queued for each confirmation.
  'stamp-invoice': { queue: QUEUES.stamp, id: (d) => jobId.stampInvoice(d.invoiceId), options: pacOptions },
  // The confirmations of a few milliseconds (issue #40). An invoice the PAC does not answer goes on to its own
  // stamp-invoice job (workers/stamp-invoices.ts), so a retry of the batch is only for what failed before any
  // PAC call (PostgreSQL away); it skips what is recorded. A batch whose worker died runs again once (BullMQ's
  // stalled check), then the sweep takes over.
  'stamp-invoices': {
    queue: QUEUES.stamp,
    id: (d) => jobId.stampInvoices(d.invoiceIds[0] ?? 'empty'),
    options: (s) => ({ attempts: 3, backoff: { type: 'exponential', delay: s.pacBackoffMs }, removeOnComplete: KEEP_DONE, removeOnFail: true }),
  },
  'sweep-stamping': { queue: QUEUES.stamp, id: () => jobId.sweepStamping, options: sweepOptions, every: (s) => s.stampSweepMs },
  // By itself for every waiting claim; queued at once by the catch-up of a sale, for that sale.
  'settle-offline-claims': {
    queue: QUEUES.stamp,
    id: (d) => (d.transactionId === undefined ? jobId.settleOfflineClaims : jobId.settleOfflineClaimsOf(d.transactionId)),
    // The periodic run on shard 0 with its scheduler; a sale's own run by its id.
    shardKey: (d) => (d.transactionId === undefined ? undefined : jobId.settleOfflineClaimsOf(d.transactionId)),
    // A sale's own run is kept like other per-item jobs (the dashboard shows it); the periodic run is not.
    options: (_s, d) => ({ attempts: 5, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: d.transactionId === undefined ? true : KEEP_DONE, removeOnFail: 100 }),
    every: (s) => s.stampSweepMs,
  },
  'sweep-invoice-follow-ups': { queue: QUEUES.email, id: () => jobId.sweepInvoiceFollowUps, options: sweepOptions, every: (s) => s.stampSweepMs },
  // To the buyer once (one id per invoice); on request, again to any address (`to`), each its own job.
  'email-invoice': {
    queue: QUEUES.email,
    id: (d) => (d.to === undefined ? jobId.emailInvoice(d.invoiceId) : undefined),
    shardKey: (d) => jobId.emailInvoice(d.invoiceId),
    options: emailOptions,
  },
  'email-cancellation': { queue: QUEUES.email, id: (d) => jobId.emailCancellation(d.invoiceId), options: emailOptions },
  'email-offline-claim': { queue: QUEUES.email, id: (d) => jobId.emailOfflineClaim(d.keyId, d.saleId), options: emailOptions },
  'cancel-invoice': { queue: QUEUES.cancel, id: (d) => jobId.cancelInvoice(d.cancellationId), options: pacOptions },
  'poll-cancellations': { queue: QUEUES.cancel, id: () => jobId.pollCancellations, options: sweepOptions, every: (s) => s.cancellationPollMs },
  'dispatch-webhooks': { queue: QUEUES.webhooks, id: () => jobId.dispatchWebhooks, options: sweepOptions, every: (s) => s.webhookDispatchMs },
  'deliver-webhook': {
    queue: QUEUES.webhooks,
    id: (d) => jobId.deliverWebhook(d.deliveryId),
    options: (s) => ({ attempts: s.webhookAttempts, backoff: { type: 'exponential', delay: s.webhookBackoffMs }, removeOnComplete: KEEP_DONE, removeOnFail: { age: 86_400 } }),
  },
  'issue-global-invoices': { queue: QUEUES.globalInvoice, id: () => jobId.issueGlobalInvoices, options: sweepOptions, every: (s) => s.globalInvoiceCheckMs },
  // Every 6 hours: a CSD about to expire stops all invoicing silently, so its merchant hears of it in time.
  'announce-expiring-csds': { queue: QUEUES.webhooks, id: () => jobId.announceExpiringCsds, options: sweepOptions, every: () => 6 * 3600_000 },
  // Hourly: the time-partitioned tables get their days ahead and lose their expired ones (workers/keep-partitions.ts).
  'keep-partitions': { queue: QUEUES.webhooks, id: () => jobId.keepPartitions, options: sweepOptions, every: () => 3600_000 },
  // One job per export; a crashed attempt starts the ZIP again from zero (the export says FAILED after the last).
  'build-invoice-export': {
    queue: QUEUES.exports,
    id: (d) => jobId.buildInvoiceExport(d.exportId),
    options: () => ({ attempts: BUILD_EXPORT_ATTEMPTS, backoff: { type: 'exponential', delay: 5000 }, removeOnComplete: KEEP_DONE, removeOnFail: 100 }),
  },
  // Hourly: exports past their keeping time lose their file and their row.
  'sweep-invoice-exports': { queue: QUEUES.exports, id: () => jobId.sweepInvoiceExports, options: sweepOptions, every: () => 3600_000 },
};

/** Attempts of a ZIP build before its export says FAILED. */
export const BUILD_EXPORT_ATTEMPTS = 3;

/** Predictable job ids where a duplicate must not happen (BullMQ refuses ':' in custom ids). */
export const jobId = {
  /** A render batch, by its first QR: known before the add, so the API knows the id its reply will carry (shared/platform/queues.ts). */
  renderQr: (qrId: string) => `render.${qrId}`,
  /** One delayed job per epoch second in which QRs fall due. */
  expireDue: (dueAt: number) => `expire-due.${dueAt}`,
  planExpiries: 'plan-expiries',
  sweepExpired: 'sweep-expired-qrs',
  /** Deduplication id: one synchronization per issuer waiting or running at a time. */
  syncIssuer: (issuerId: string) => `sync-issuer.${issuerId}`,
  sweepLostSyncs: 'sweep-lost-syncs',
  /** One stamp job per invoice: a re-enqueue while it waits or runs is a no-op. */
  stampInvoice: (invoiceId: string) => `stamp.${invoiceId}`,
  /** A stamp batch, by its first invoice (each confirmation is in one batch: the id is unique). */
  stampInvoices: (firstInvoiceId: string) => `stamps.${firstInvoiceId}`,
  sweepStamping: 'sweep-stamping',
  settleOfflineClaims: 'settle-offline-claims',
  settleOfflineClaimsOf: (transactionId: string) => `settle-offline-claims.${transactionId}`,
  /** The buyer of a refused offline claim told once. The POS's sale id may hold any character: hashed into the id. */
  emailOfflineClaim: (keyId: string, saleId: string) => `email-offline-claim.${keyId}.${createHash('sha256').update(saleId).digest('base64url').slice(0, 22)}`,
  emailInvoice: (invoiceId: string) => `email.${invoiceId}`,
  /** The buyer told once that their invoice was cancelled. */
  emailCancellation: (invoiceId: string) => `email-cancellation.${invoiceId}`,
  sweepInvoiceFollowUps: 'sweep-invoice-follow-ups',
  /** One job per cancellation request: a repeated DELETE or the poll's re-queue while it waits is a no-op. */
  cancelInvoice: (cancellationId: string) => `cancel.${cancellationId}`,
  pollCancellations: 'poll-cancellations',
  dispatchWebhooks: 'dispatch-webhooks',
  issueGlobalInvoices: 'issue-global-invoices',
  announceExpiringCsds: 'announce-expiring-csds',
  keepPartitions: 'keep-partitions',
  buildInvoiceExport: (exportId: string) => `export.${exportId}`,
  sweepInvoiceExports: 'sweep-invoice-exports',
  /** One job per delivery: the dispatcher's re-queue of a lost one is a no-op while it waits or retries. */
  deliverWebhook: (deliveryId: string) => `webhook.${deliveryId}`,
} as const;
