import { randomBytes } from 'node:crypto';
import { AppError } from '../../shared/platform/errors.js';
import { jobId } from '../../shared/platform/jobs.js';
import type { FromSchema } from 'json-schema-to-ts';
import type { issuerSyncAcceptedSchema } from '../contract/issuers/issuer-schema.js';
import { findIssuerById, recordSyncRequested } from '../../shared/repositories/issuers.js';
import type { ApiDeps } from '../deps.js';

export type SyncAccepted = FromSchema<typeof issuerSyncAcceptedSchema>;

/**
 * Enqueues a CSF synchronization, or joins the one already waiting or running for this issuer
 * (BullMQ deduplication by issuer): two clicks never start two syncs.
 */
export async function synchronizeIssuer(deps: ApiDeps, issuerId: string): Promise<SyncAccepted> {
  const candidate = `${jobId.syncIssuer(issuerId)}.${randomBytes(6).toString('hex')}`;
  let job;
  try {
    job = await deps.producers.add('sync-issuer', { issuerId }, { jobId: candidate });
  } catch (cause) {
    throw new AppError(503, 'service_unavailable', 'The job queue is unavailable; retry shortly.', { cause, expose: true, headers: { 'Retry-After': '1' } });
  }
  const id = job.id ?? candidate;
  if (id === candidate) {
    const requestedAt = new Date();
    await recordSyncRequested(deps.db, issuerId, id, requestedAt);
    // The state at acceptance; the worker may already be running it (GET the issuer to follow it).
    return { issuerId, jobId: id, status: 'PENDING', requestedAt: requestedAt.toISOString() };
  }
  const row = await findIssuerById(deps.db, issuerId);
  return {
    issuerId,
    jobId: id,
    status: row?.sync_job_id === id && row.sync_status ? row.sync_status : 'PENDING',
    requestedAt: row?.sync_requested_at?.toISOString() ?? null,
  };
}
