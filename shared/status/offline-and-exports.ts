/**
 * The status page's figures of offline tickets and ZIP exports (issue #39: the page showed neither): claims
 * waiting for their sale and the soonest to close, claims refused and keys revoked in the last 24 hours, keys
 * in use; exports by state among the kept ones and the bytes the built ones take in the file store. Small
 * counts over partial or keyed ranges; read once a minute at most.
 */
import type { Db } from '../platform/db.js';

export interface OfflineAndExportFigures {
  claimsWaiting: number;
  /** When the next waiting claim's ticket can no longer arrive; null when none waits. */
  nextClaimCloses: Date | null;
  claimsRefused24h: number;
  keysActive: number;
  keysRevoked24h: number;
  exports: Record<'PENDING' | 'RUNNING' | 'READY' | 'FAILED', number>;
  exportBytes: number;
}

export async function readOfflineAndExports(db: Db, now: Date): Promise<OfflineAndExportFigures> {
  const dayAgo = new Date(now.getTime() - 86_400_000);
  const { rows } = await db.raw<{
    rows: {
      waiting: number;
      next_closes: Date | null;
      refused: number;
      keys_active: number;
      keys_revoked: number;
      pending: number;
      running: number;
      ready: number;
      failed: number;
      bytes: string | null;
    }[];
  }>(
    `SELECT
       (SELECT count(*)::int FROM offline_claims WHERE status = 'WAITING') AS waiting,
       (SELECT min(closes_at) FROM offline_claims WHERE status = 'WAITING') AS next_closes,
       (SELECT count(*)::int FROM offline_claims WHERE status = 'REFUSED' AND updated_at >= :dayAgo) AS refused,
       (SELECT count(*)::int FROM offline_keys WHERE revoked_at IS NULL) AS keys_active,
       (SELECT count(*)::int FROM offline_keys WHERE revoked_at >= :dayAgo) AS keys_revoked,
       e.pending, e.running, e.ready, e.failed, e.bytes
     FROM (SELECT count(*) FILTER (WHERE status = 'PENDING')::int AS pending, count(*) FILTER (WHERE status = 'RUNNING')::int AS running,
                  count(*) FILTER (WHERE status = 'READY')::int AS ready, count(*) FILTER (WHERE status = 'FAILED')::int AS failed,
                  sum(size_bytes) FILTER (WHERE status = 'READY')::text AS bytes
           FROM invoice_exports WHERE expires_at > :now) e`,
    { dayAgo, now },
  );
  const r = rows[0]!;
  return {
    claimsWaiting: r.waiting,
    nextClaimCloses: r.next_closes,
    claimsRefused24h: r.refused,
    keysActive: r.keys_active,
    keysRevoked24h: r.keys_revoked,
    exports: { PENDING: r.pending, RUNNING: r.running, READY: r.ready, FAILED: r.failed },
    exportBytes: Number(r.bytes ?? 0),
  };
}
