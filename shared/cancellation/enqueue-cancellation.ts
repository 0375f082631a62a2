import type { Producers } from '../platform/queues.js';

/** Queues the job that sends a cancellation request to the PAC; a repeated enqueue while it waits is a no-op. */
export async function enqueueCancellation(producers: Producers, cancellationId: string): Promise<void> {
  await producers.add('cancel-invoice', { cancellationId });
}
