import type { Db } from '../shared/platform/db.js';
import type { Producers } from '../shared/platform/queues.js';
import { EXPIRY_PLAN_WINDOW_MS } from '../shared/domain/expiry-buckets.js';
import { scheduleExpiryBuckets } from '../shared/qr/schedule-expiry-buckets.js';
import { dueExpirySeconds } from '../shared/repositories/qr-transactions.js';

/**
 * plan-expiries (every EXPIRY_PLAN_EVERY_MS): schedules the expiry buckets of the QRs falling due in the
 * next EXPIRY_PLAN_WINDOW_MS, read from PostgreSQL, the truth. Twice the period, so a late run still
 * covers every second; buckets already scheduled are no-ops.
 */
export async function planExpiriesJob(db: Db, producers: Producers, now: Date = new Date()): Promise<{ buckets: number }> {
  const seconds = await dueExpirySeconds(db, now, new Date(now.getTime() + EXPIRY_PLAN_WINDOW_MS));
  await scheduleExpiryBuckets(producers, seconds);
  return { buckets: seconds.length };
}
