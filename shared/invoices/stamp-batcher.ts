import type { Producers } from '../platform/queues.js';

/** Confirmations in one stamp batch at most: each is one PAC call in flight at once, and ~30 bytes of payload. */
export const STAMP_BATCH_MAX = 32;

interface Waiter {
  invoiceId: string;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Gathers the confirmations one API process accepts within `windowMs` into one `stamp-invoices` job (issue #40):
 * a BullMQ job costs ~64 Redis commands (its scripts' own counted) whatever it carries, and the batch is read, sealed and saved in a few
 * statements (workers/stamp-invoices.ts). The first confirmation of a batch starts its window; a full batch
 * leaves at once. Each caller's promise settles with its batch's add: a confirmation answers once its stamp is
 * queued, and one whose add failed is left to the sweep (STAMPING in PostgreSQL, as when any enqueue fails).
 */
class StampBatcher {
  private pending: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly producers: Producers,
    private readonly windowMs: number,
  ) {}

  queue(invoiceId: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ invoiceId, resolve, reject });
      if (this.pending.length >= STAMP_BATCH_MAX) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.windowMs);
    });
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    this.producers.add('stamp-invoices', { invoiceIds: batch.map((w) => w.invoiceId) }).then(
      () => batch.forEach((w) => w.resolve()),
      (err: unknown) => batch.forEach((w) => w.reject(err)),
    );
  }
}

// One batcher per API process's producers (tests build apps with producers of their own).
const batchers = new WeakMap<Producers, StampBatcher>();

/**
 * Queues the stamp of a buyer's (or merchant's) confirmation in this process's next stamp batch; resolves once
 * the batch's job is added. Other CFDIs (credit notes, complements, global invoices) and the sweep keep the
 * single `stamp-invoice` job (shared/invoices/enqueue-stamp.ts).
 */
export function queueConfirmedStamp(producers: Producers, windowMs: number, invoiceId: string): Promise<void> {
  let batcher = batchers.get(producers);
  if (!batcher) batchers.set(producers, (batcher = new StampBatcher(producers, windowMs)));
  return batcher.queue(invoiceId);
}
