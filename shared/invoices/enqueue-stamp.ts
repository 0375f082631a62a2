import type { Producers } from '../platform/queues.js';

/**
 * Queues the stamp job of an accepted confirmation: one job id per invoice (a second enqueue while it
 * waits or runs is a no-op), retries with exponential backoff on PAC timeouts and 5xx (shared/platform/jobs.ts).
 * Used by the confirm route and by the sweep that re-queues confirmations whose job was lost or gave up.
 */
export async function enqueueStamp(producers: Producers, invoiceId: string): Promise<void> {
  await producers.add('stamp-invoice', { invoiceId });
}
