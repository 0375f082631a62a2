import type { OfflineKeyRow } from '../../../shared/repositories/offline-keys.js';
import type { OfflineClaimRow } from '../../../shared/repositories/offline-claims.js';
import type { OfflineClaimSummary, OfflineKey } from './offline-key-schema.js';

export function offlineKeyView(row: OfflineKeyRow): OfflineKey {
  return {
    keyId: row.id,
    merchantId: row.merchant_id,
    status: row.revoked_at ? 'REVOKED' : 'ACTIVE',
    windowHours: row.window_hours,
    currency: row.currency,
    createdAt: row.created_at.toISOString(),
    revokedAt: row.revoked_at?.toISOString() ?? null,
    oldTicketsUntil: row.old_tickets_until?.toISOString() ?? null,
    replacedBy: row.replaced_by,
  };
}

export function offlineClaimSummaryView(row: OfflineClaimRow): OfflineClaimSummary {
  return {
    keyId: row.key_id,
    saleId: row.sale_id,
    amount: row.amount,
    soldAt: row.sold_at.toISOString(),
    closesAt: row.closes_at.toISOString(),
    status: row.status,
    refusal: row.refusal,
    claimedAt: row.created_at.toISOString(),
    invoiceId: row.invoice_id,
  };
}
