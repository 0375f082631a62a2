import { RateLimitError, type Job, type Worker } from 'bullmq';
import type { Logger } from '../shared/platform/logger.js';

/**
 * One structured log line per outcome of a job about a sale (render, expiry, stamp, PAC refusal, e-mail,
 * cancellation, webhook delivery, CSF synchronization), so an operator follows a sale from POST to e-mail by
 * `qr_id`. Only ids, outcomes and codes are logged, whitelisted from the job's payload and result: never an
 * address, a name, an RFC, a document or a secret. Periodic jobs (sweeps, polls, the dispatcher) log at debug.
 */
const SALE_JOBS = new Set(['render-qr', 'stamp-invoice', 'stamp-invoices', 'email-invoice', 'email-cancellation', 'cancel-invoice', 'deliver-webhook', 'sync-issuer']);

/** Payload and result fields that may be logged, and their names in the log. */
const LOGGED: Record<string, string> = {
  qrId: 'qr_id',
  invoiceId: 'invoice_id',
  cancellationId: 'cancellation_id',
  deliveryId: 'delivery_id',
  issuerId: 'issuer_id',
  outcome: 'outcome',
  status: 'status',
  uuid: 'uuid',
  code: 'code',
  expired: 'expired',
  event: 'event',
  recipient: 'recipient',
  email: 'email',
  statusCode: 'status_code',
};

export function jobLogFields(...sources: unknown[]): Record<string, string | number | boolean> {
  const fields: Record<string, string | number | boolean> = {};
  for (const source of sources) {
    if (!source || typeof source !== 'object') continue;
    for (const [key, value] of Object.entries(source)) {
      const name = LOGGED[key];
      if (name && (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')) fields[name] = value;
    }
  }
  return fields;
}

const logged = new WeakSet<Error>();

function isBatch(data: unknown): data is { qrs: { qrId: string }[] } {
  return typeof data === 'object' && data !== null && Array.isArray((data as { qrs?: unknown }).qrs);
}

function isInvoiceBatch(data: unknown): data is { invoiceIds: string[] } {
  return typeof data === 'object' && data !== null && Array.isArray((data as { invoiceIds?: unknown }).invoiceIds);
}

/** A stamp batch's outcome of each invoice (its result's `invoices`), by invoice id. */
function outcomesById(result: unknown): Map<unknown, unknown> {
  const invoices = typeof result === 'object' && result !== null ? (result as { invoices?: unknown }).invoices : undefined;
  return new Map(Array.isArray(invoices) ? invoices.map((o: unknown) => [(o as { invoiceId?: unknown }).invoiceId, o]) : []);
}

/** Failures no handler threw (a job stalled past its limit, a lock lost) still get their line. */
export function logOtherFailures(worker: Worker, queue: string, logger: Logger): void {
  worker.on('failed', (job, err) => {
    if (logged.has(err)) return;
    logger.warn({ queue, ...(job ? { job: job.name, job_id: job.id, ...jobLogFields(job.data) } : {}), err, final: true }, 'job failed');
  });
}

/**
 * Wraps a queue's processor: the line is written when the handler returns or throws, before BullMQ records
 * the outcome, so whoever sees the job finished finds its line already written.
 */
export function withOutcomeLog(queue: string, logger: Logger, processor: (job: Job) => Promise<unknown>): (job: Job) => Promise<unknown> {
  return async (job) => {
    const base = { queue, job: job.name, job_id: job.id, attempt: job.attemptsMade + 1 };
    let result: unknown;
    try {
      result = await processor(job);
    } catch (err) {
      // A queue paused (workers/pause-on-pac.ts): the job waits again, nothing failed; the pause has its own line.
      if (err instanceof RateLimitError) throw err;
      const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1) || (err as Error).name === 'UnrecoverableError';
      const data: unknown = job.data;
      const lines = isInvoiceBatch(data) ? data.invoiceIds.map((invoiceId) => ({ invoice_id: invoiceId, batch: data.invoiceIds.length })) : [jobLogFields(data)];
      for (const fields of lines) logger.warn({ ...base, ...fields, err, final }, final ? 'job failed' : 'job failed, will retry');
      if (err instanceof Error) logged.add(err);
      throw err;
    }
    const line = { ...base, ...jobLogFields(job.data, result) };
    if (!SALE_JOBS.has(job.name)) logger.debug(line, 'job done');
    // A render job serves several sales: one line per QR, so each sale's trail has its own.
    else if (isBatch(job.data)) for (const qr of job.data.qrs) logger.info({ ...line, qr_id: qr.qrId, batch: job.data.qrs.length }, 'job done');
    // A stamp batch (issue #40): one line per invoice, with its own outcome (and its buyer's mail's).
    else if (isInvoiceBatch(job.data)) {
      const { invoiceIds } = job.data;
      const outcomes = outcomesById(result);
      for (const invoiceId of invoiceIds) logger.info({ ...base, ...jobLogFields(outcomes.get(invoiceId)), invoice_id: invoiceId, batch: invoiceIds.length }, 'job done');
    } else logger.info(line, 'job done');
    return result;
  };
}

/**
 * A render lane job's line (issue #40: renders are not BullMQ jobs any more), as a render job's was: one per
 * QR, `job` render-qr, so each sale's trail keeps its render.
 */
export async function withRenderLaneLog<T>(logger: Logger, job: { id: string; qrs: { qrId: string }[] }, run: () => Promise<T>): Promise<T> {
  const base = { queue: 'render-lane', job: 'render-qr', job_id: job.id, batch: job.qrs.length };
  try {
    const result = await run();
    for (const qr of job.qrs) logger.info({ ...base, qr_id: qr.qrId }, 'job done');
    return result;
  } catch (err) {
    for (const qr of job.qrs) logger.warn({ ...base, qr_id: qr.qrId, err, final: true }, 'job failed');
    throw err;
  }
}
