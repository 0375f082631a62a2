import { containsPattern, type Db, type Trx } from '../platform/db.js';
import type { GlobalPeriodicity } from '../global-invoice/global-period.js';
import { newId } from '../platform/ids.js';
import type { PageRequest } from '../platform/pagination.js';
import type { SyncStatus } from '../issuers/sync-status.js';

export interface IssuerRow {
  id: string;
  account_id: string;
  group_id: string;
  alias: string;
  rfc: string;
  id_cif: string;
  business_name: string;
  email: string;
  zip: string;
  tax_regime_code: string;
  status: 'ACTIVE' | 'INACTIVE';
  invoice_logo_url: string | null;
  global_periodicity: GlobalPeriodicity;
  sync_status: SyncStatus | null;
  sync_job_id: string | null;
  sync_attempts: number;
  sync_error: string | null;
  sync_requested_at: Date | null;
  sync_finished_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type NewIssuer = Pick<IssuerRow, 'account_id' | 'group_id' | 'alias' | 'rfc' | 'id_cif' | 'business_name' | 'email' | 'zip' | 'tax_regime_code'>;

export async function groupBelongsTo(db: Db, accountId: string, groupId: string): Promise<boolean> {
  return (await db('groups').where({ id: groupId, account_id: accountId }).first('id')) !== undefined;
}

/**
 * Inserts an issuer; undefined when the group already has one with this RFC. The unique constraint on
 * (group_id, rfc) decides, so two concurrent creates cannot both succeed.
 */
export async function insertIssuer(db: Db, issuer: NewIssuer): Promise<IssuerRow | undefined> {
  const rows = (await db('issuers')
    .insert({ id: newId('issuer'), ...issuer, status: 'ACTIVE' })
    .onConflict(['group_id', 'rfc'])
    .ignore()
    .returning('*')) as IssuerRow[];
  return rows[0];
}

/** One issuer of the account, or undefined (another account's issuer is as unknown as a missing one). */
export async function findIssuer(db: Db, accountId: string, issuerId: string): Promise<IssuerRow | undefined> {
  return (await db('issuers').where({ id: issuerId, account_id: accountId }).first()) as IssuerRow | undefined;
}

/** The account's issuers, optionally of one group, whose name, alias or RFC contains `filter`, oldest first. */
export async function listIssuers(db: Db, accountId: string, query: { groupId?: string; filter?: string }, page: PageRequest): Promise<{ rows: IssuerRow[]; total: number }> {
  const base = db('issuers').where({ account_id: accountId });
  if (query.groupId) base.andWhere({ group_id: query.groupId });
  if (query.filter) {
    const like = containsPattern(query.filter);
    base.andWhere((w) => {
      w.whereILike('business_name', like).orWhereILike('alias', like).orWhereILike('rfc', like);
    });
  }
  const [count, rows] = await Promise.all([
    base.clone().count<{ count: string }[]>('* as count'),
    base
      .clone()
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .limit(page.size)
      .offset(page.page * page.size),
  ]);
  return { rows: rows as IssuerRow[], total: Number(count[0]?.count ?? 0) };
}

/** Any issuer by id, for workers (the job was authorized when it was enqueued). */
export async function findIssuerById(db: Db, issuerId: string): Promise<IssuerRow | undefined> {
  return (await db('issuers').where({ id: issuerId }).first()) as IssuerRow | undefined;
}

/**
 * A synchronization was enqueued as `jobId`. Skipped when the worker already recorded this job
 * (it may start before the API gets here).
 */
export async function recordSyncRequested(db: Db, issuerId: string, jobId: string, now: Date): Promise<void> {
  await db('issuers').where({ id: issuerId }).andWhereRaw('sync_job_id IS DISTINCT FROM ?', [jobId]).update({
    sync_status: 'PENDING',
    sync_job_id: jobId,
    sync_attempts: 0,
    sync_error: null,
    sync_requested_at: now,
    sync_finished_at: null,
    sync_attention_at: null,
  });
}

export interface SyncProgress {
  jobId: string;
  status: SyncStatus;
  attempts: number;
  error?: string | null;
  finishedAt?: Date | null;
  /** On success: what SAT's CSF says now. */
  changes?: { businessName: string; taxRegimeCode: string; zip: string };
  /** FAILED by the service's side (the CSF service never answered), not the owner's data: an operator's to look at (issue #38). */
  needsAttention?: boolean;
  now: Date;
}

export async function recordSyncProgress(db: Db, issuerId: string, p: SyncProgress): Promise<void> {
  await db('issuers')
    .where({ id: issuerId })
    .update({
      sync_status: p.status,
      sync_job_id: p.jobId,
      sync_attempts: p.attempts,
      sync_error: p.error ?? null,
      sync_finished_at: p.finishedAt ?? null,
      sync_attention_at: p.status === 'FAILED' && p.needsAttention ? p.now : null,
      sync_requested_at: db.raw('coalesce(sync_requested_at, ?)', [p.now]),
      ...(p.changes ? { business_name: p.changes.businessName, tax_regime_code: p.changes.taxRegimeCode, zip: p.changes.zip, updated_at: p.now } : {}),
    });
}

/** The states of a synchronization whose job has not ended yet. */
export const SYNC_IN_PROGRESS: readonly SyncStatus[] = ['PENDING', 'RUNNING', 'RETRY_SCHEDULED'];

/**
 * The synchronization `jobId` ended without recording its outcome (its job was lost, or failed without
 * running its handler): FAILED with `reason`, unless it has been recorded meanwhile or another job has
 * taken over. True when this call changed the row.
 */
export async function recordSyncInterrupted(db: Db, issuerId: string, jobId: string, reason: string, now: Date): Promise<boolean> {
  const changed = await db('issuers').where({ id: issuerId, sync_job_id: jobId }).whereIn('sync_status', SYNC_IN_PROGRESS).update({
    sync_status: 'FAILED',
    sync_error: reason,
    sync_finished_at: now,
    sync_attention_at: now,
  });
  return changed > 0;
}

export type IssuerUpdate = Partial<Pick<IssuerRow, 'group_id' | 'alias' | 'email' | 'tax_regime_code' | 'status' | 'invoice_logo_url'>>;

/** Applies the update; 'rfc_taken' when the target group already has an issuer with this RFC (unique constraint). */
export async function updateIssuer(db: Db | Trx, issuerId: string, update: IssuerUpdate): Promise<IssuerRow | 'rfc_taken'> {
  try {
    const [row] = (await db('issuers')
      .where({ id: issuerId })
      .update({ ...update, updated_at: db.fn.now() })
      .returning('*')) as IssuerRow[];
    if (!row) throw new Error(`issuer ${issuerId} vanished`);
    return row;
  } catch (err) {
    if ((err as { code?: string }).code === '23505') return 'rfc_taken';
    throw err;
  }
}

/** The c_Periodicidad of the issuer's global invoice; QRs created from now on take it. */
export async function setGlobalPeriodicity(db: Db, issuerId: string, periodicity: GlobalPeriodicity): Promise<IssuerRow> {
  const [row] = (await db('issuers').where({ id: issuerId }).update({ global_periodicity: periodicity, updated_at: db.fn.now() }, '*')) as IssuerRow[];
  if (!row) throw new Error(`issuer ${issuerId} vanished`);
  return row;
}
