import type { Config } from '../config.js';
import { jobId } from '../jobs.js';
import type { Producers } from '../queues.js';

/**
 * Queues the stamp job of an accepted confirmation: one job id per invoice (a second enqueue while it
 * waits or runs is a no-op), retries with exponential backoff on PAC timeouts and 5xx. Used by the
 * confirm route and by the sweep that re-queues confirmations whose job was lost or gave up.
 */
export async function enqueueStamp(producers: Producers, config: Readonly<Config>, invoiceId: string): Promise<void> {
  await producers.add('stamp-invoice', { invoiceId }, pacJobOptions(config, jobId.stampInvoice(invoiceId)));
}

/** Options of a job that calls the PAC: its own id, retries with exponential backoff; a sweep from PostgreSQL takes over after the last. */
export function pacJobOptions(config: Readonly<Config>, id: string) {
  return {
    jobId: id,
    attempts: config.pacAttempts,
    backoff: { type: 'exponential', delay: config.pacBackoffMs },
    removeOnComplete: { age: 3600, count: 1000 },
    removeOnFail: true,
  };
}
