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
    refusal: c.refusal
      ? { code: c.refusal.code, message: c.refusal.message, detail: c.refusal.detail ?? null, detail_code: c.refusal.detail_code ?? null, source: c.refusal.source ?? 'pac' }
      : null,
    attention: c.attention_cause ? { cause: c.attention_cause, since: c.status_since.toISOString() } : null,
  };
}
