import type { OfflineKeyRow } from '../../../shared/repositories/offline-keys.js';
import type { OfflineKey } from './offline-key-schema.js';

export function offlineKeyView(row: OfflineKeyRow): OfflineKey {
  return {
    keyId: row.id,
    merchantId: row.merchant_id,
    status: row.revoked_at ? 'REVOKED' : 'ACTIVE',
    windowHours: row.window_hours,
    createdAt: row.created_at.toISOString(),
    revokedAt: row.revoked_at?.toISOString() ?? null,
    oldTicketsUntil: row.old_tickets_until?.toISOString() ?? null,
    replacedBy: row.replaced_by,
  };
}
