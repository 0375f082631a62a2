import type { Db } from '../shared/db.js';
import type { ExpireQrPayload } from '../shared/jobs.js';
import { expireQrTransactions } from '../shared/repositories/qr-transactions.js';

/** How many due QRs one expire-qr job moves to EXPIRED at most, besides its own. */
export const EXPIRE_BATCH = 1000;

/**
 * expire-qr: the delayed job scheduled at expires_at. It expires every QR due by now (its own among them)
 * in one UPDATE, not only its own: when thousands fall due within seconds, the jobs' pace (one
 * transaction each, WORKER_CONCURRENCY at a time) fell behind by seconds and so did the expiries; now the
 * first job to run expires what is due, and the jobs behind it find theirs done. A QR invoiced, cancelled
 * or confirmed meanwhile is left alone (expireQrTransactions' conditions). `expired` says whether this
 * job's own QR was among those it expired.
 */
export async function expireQrJob(db: Db, data: ExpireQrPayload): Promise<{ expired: boolean }> {
  const batch = await expireQrTransactions(db, { limit: EXPIRE_BATCH });
  if (batch.includes(data.qrId)) return { expired: true };
  // More were due than one batch holds: make sure of this job's own QR.
  if (batch.length >= EXPIRE_BATCH) return { expired: (await expireQrTransactions(db, { qrId: data.qrId })).length > 0 };
  return { expired: false };
}
