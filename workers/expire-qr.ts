import type { Db } from '../shared/db.js';
import type { ExpireQrPayload } from '../shared/jobs.js';
import { expireQrTransactions } from '../shared/repositories/qr-transactions.js';

/** expire-qr: the delayed job scheduled at expires_at. A QR invoiced or cancelled meanwhile is left alone. */
export async function expireQrJob(db: Db, data: ExpireQrPayload): Promise<{ expired: boolean }> {
  const expired = await expireQrTransactions(db, { qrId: data.qrId });
  return { expired: expired.length > 0 };
}
