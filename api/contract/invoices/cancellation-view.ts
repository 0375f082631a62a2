import type { CancellationRow } from '../../../shared/repositories/invoice-cancellations.js';
import type { InvoiceStatus } from '../../../shared/repositories/invoices.js';

/** The InvoiceCancellation object (cancellation-schema.ts). */
export function cancellationView(uuid: string, invoiceStatus: InvoiceStatus, c: CancellationRow) {
  return {
    uuid,
    invoice_status: invoiceStatus,
    status: c.status,
    motive: c.motive,
    substitution_uuid: c.substitution_uuid,
    acceptance: c.acceptance,
    acceptance_reason: c.acceptance_reason,
    sat_status: c.sat_status,
    requested_at: c.requested_at.toISOString(),
    resolved_at: c.resolved_at ? c.resolved_at.toISOString() : null,
    acuse_available: c.acuse_file_key !== null,
    refusal: c.refusal ? { ...c.refusal, source: 'pac' } : null,
  };
}
