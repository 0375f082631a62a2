import { DEAD_INVOICE_STATUSES } from '../domain/invoice-lifecycle.js';
import type { Db, Trx } from '../platform/db.js';

/**
 * The CFDI that still depend on this invoice: credit notes that credit it and payment complements that
 * pay it, not refused or cancelled. SAT cancels an invoice only after those (UUID, or id while stamping).
 */
export async function liveRelatedCfdis(db: Db | Trx, invoiceId: string): Promise<string[]> {
  const rows = (await db('invoices as r')
    .whereIn('r.id', (q) => {
      q.select('credit_note_id')
        .from('credit_allocations')
        .where({ invoice_id: invoiceId })
        .union((u) => {
          u.select('payment_complement_id').from('payment_allocations').where({ invoice_id: invoiceId });
        });
    })
    .whereNotIn('r.status', DEAD_INVOICE_STATUSES)
    .orderBy('r.created_at')
    .select(db.raw('coalesce(r.uuid, r.id) as ref'))) as { ref: string }[];
  return rows.map((r) => r.ref);
}
