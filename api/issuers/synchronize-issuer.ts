import { AppError } from '../../shared/platform/errors.js';
import type { FromSchema } from 'json-schema-to-ts';
import type { issuerSyncAcceptedSchema } from '../contract/issuers/issuer-schema.js';
import { findIssuerById } from '../../shared/repositories/issuers.js';
import { requestIssuerSync } from '../../shared/issuers/request-issuer-sync.js';
import type { ApiDeps } from '../deps.js';

export type SyncAccepted = FromSchema<typeof issuerSyncAcceptedSchema>;

/** POST …/synchronize: the synchronization asked for or joined (shared/issuers/request-issuer-sync.ts), as the answer says it; 503 when the queue cannot take it. */
export async function synchronizeIssuer(deps: ApiDeps, issuerId: string): Promise<SyncAccepted> {
  const requestedAt = new Date();
  let requested;
  try {
    requested = await requestIssuerSync(deps.db, deps.producers, issuerId, requestedAt);
  } catch (cause) {
    throw new AppError(503, 'service_unavailable', 'The job queue is unavailable; retry shortly.', { cause, expose: true, headers: { 'Retry-After': '1' } });
  }
  // The state at acceptance; the worker may already be running it (GET the issuer to follow it).
  if (requested.created) return { issuerId, jobId: requested.jobId, status: 'PENDING', requestedAt: requestedAt.toISOString() };
  const row = await findIssuerById(deps.db, issuerId);
  return {
    issuerId,
    jobId: requested.jobId,
    status: row?.sync_job_id === requested.jobId && row.sync_status ? row.sync_status : 'PENDING',
    requestedAt: row?.sync_requested_at?.toISOString() ?? null,
  };
}
