import { UnrecoverableError, type Job } from 'bullmq';
import { CsfNotFound, type CsfClient } from '../shared/adapters/csf/csf-client.js';
import { issuerChangesFromCsf } from '../shared/adapters/csf/issuer-changes-from-csf.js';
import type { Db } from '../shared/platform/db.js';
import type { SyncIssuerPayload, SyncIssuerResult } from '../shared/platform/jobs.js';
import { findIssuerById, recordSyncProgress } from '../shared/repositories/issuers.js';
import type { SatCatalogs } from '../shared/sat/catalogs.js';
import { satToday } from '../shared/domain/time-zone.js';

export interface SyncIssuerDeps {
  db: Db;
  csf: CsfClient;
  catalogs: SatCatalogs;
  /** After the issuer's name changed: the API processes' cached API key principals carry it (shared/platform/principal-generation.ts). */
  principalsChanged(): Promise<void>;
}

/**
 * sync-issuer: one attempt at reading the issuer's CSF. Transient failures are thrown for BullMQ to
 * retry (backoff set at enqueue); the last attempt, or a failure retrying cannot fix, leaves FAILED
 * with the reason in PostgreSQL. A last attempt that failed on the service's side (the CSF service down
 * throughout) also needs an operator's attention (shared/status/needs-attention.ts); the owner's own data
 * (not found, another RFC) does not: the owner reads it and fixes it.
 */
export async function syncIssuerJob(deps: SyncIssuerDeps, job: Job<SyncIssuerPayload>): Promise<SyncIssuerResult> {
  const jobId = job.id ?? '';
  const attempt = job.attemptsMade + 1;
  const issuer = await findIssuerById(deps.db, job.data.issuerId);
  if (!issuer) throw new UnrecoverableError(`issuer ${job.data.issuerId} no longer exists`);
  await recordSyncProgress(deps.db, issuer.id, { jobId, status: 'RUNNING', attempts: attempt, now: new Date() });

  let failure: { reason: string; retryable: boolean };
  try {
    const csf = await deps.csf.fetch(issuer.rfc, issuer.id_cif);
    const outcome = issuerChangesFromCsf({ rfc: issuer.rfc, taxRegimeCode: issuer.tax_regime_code }, csf, deps.catalogs, satToday());
    if (outcome.ok) {
      const now = new Date();
      await recordSyncProgress(deps.db, issuer.id, { jobId, status: 'SUCCEEDED', attempts: attempt, finishedAt: now, changes: outcome.changes, now });
      await deps.principalsChanged();
      return outcome.changes;
    }
    failure = { reason: outcome.reason, retryable: false };
  } catch (err) {
    failure = { reason: err instanceof Error ? err.message : String(err), retryable: !(err instanceof CsfNotFound) };
  }
  const last = !failure.retryable || attempt >= (job.opts.attempts ?? 1);
  const now = new Date();
  await recordSyncProgress(deps.db, issuer.id, {
    jobId,
    status: last ? 'FAILED' : 'RETRY_SCHEDULED',
    attempts: attempt,
    error: failure.reason,
    finishedAt: last ? now : null,
    needsAttention: failure.retryable,
    now,
  });
  throw failure.retryable ? new Error(failure.reason) : new UnrecoverableError(failure.reason);
}
