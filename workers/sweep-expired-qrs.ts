import type { Db } from '../shared/db.js';
import { expireQrTransactions } from '../shared/repositories/qr-transactions.js';

/**
 * sweep-expired-qrs: PostgreSQL is the truth, so a delayed job lost with Redis (FLUSHALL, failover)
 * cannot keep a QR alive past its expiry. Runs every EXPIRY_SWEEP_MS, in batches.
 */
export async function sweepExpiredQrsJob(db: Db): Promise<{ expired: number }> {
  let total = 0;
  for (;;) {
    const batch = await expireQrTransactions(db, { limit: 1000 });
    total += batch.length;
    if (batch.length < 1000) return { expired: total };
  }
}
