import { randomBytes } from 'node:crypto';
import type { Db } from '../platform/db.js';
import { jobId } from '../platform/jobs.js';
import type { Producers } from '../platform/queues.js';
import { recordSyncRequested } from '../repositories/issuers.js';

/**
 * Queues a CSF synchronization of the issuer, or joins the one already waiting or running (BullMQ
 * deduplication by issuer: two clicks never start two syncs). Each request offers an id of its own; when the
 * queue keeps it, the request is recorded on the issuer (`created`), else the existing job's id comes back.
 * The owner's POST …/synchronize and the operator's `attention retry csf-sync` both come here.
 */
export async function requestIssuerSync(db: Db, producers: Producers, issuerId: string, now: Date = new Date()): Promise<{ jobId: string; created: boolean }> {
  const candidate = `${jobId.syncIssuer(issuerId)}.${randomBytes(6).toString('hex')}`;
  const job = await producers.add('sync-issuer', { issuerId }, { jobId: candidate });
  const id = job.id ?? candidate;
  if (id !== candidate) return { jobId: id, created: false };
  await recordSyncRequested(db, issuerId, id, now);
  return { jobId: id, created: true };
}
