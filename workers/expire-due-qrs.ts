import type { Db } from '../shared/platform/db.js';
import { qrTransitions } from '../shared/platform/metrics/registry.js';
import { expireQrTransactions } from '../shared/repositories/qr-transactions.js';

/** How many due QRs one UPDATE moves to EXPIRED. */
export const EXPIRE_BATCH = 1000;

/**
 * expire-due-qrs: the delayed job of one expiry bucket (shared/domain/expiry-buckets.ts). It expires every QR
 * due by now, in UPDATEs of EXPIRE_BATCH, not only its second's: when thousands fall due within seconds
 * the first bucket to run takes them all and the ones behind find theirs done. A QR invoiced, cancelled or
 * confirmed meanwhile is left alone (expireQrTransactions' conditions). The expiry sweep runs it too.
 */
export async function expireDueQrsJob(db: Db): Promise<{ expired: number }> {
  let expired = 0;
  for (;;) {
    const batch = await expireQrTransactions(db, { limit: EXPIRE_BATCH });
    expired += batch.length;
    qrTransitions.inc({ status: 'EXPIRED' }, batch.length);
    if (batch.length < EXPIRE_BATCH) return { expired };
  }
}
