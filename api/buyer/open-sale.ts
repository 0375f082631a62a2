import { isExpired } from '../../shared/domain/qr-lifecycle.js';
import { AppError } from '../../shared/platform/errors.js';
import { buyerInvoiceView } from '../contract/buyer/buyer-sale-view.js';
import { verifyQrLink } from '../../shared/qr/qr-link.js';
import { liveInvoice } from '../../shared/repositories/invoices.js';
import { cancelledInvoiceOf } from '../../shared/cancellation/cancelled-invoice.js';
import { findSale, type Sale } from '../../shared/repositories/sales.js';
import type { ApiDeps } from '../deps.js';

/** The sale behind the three parameters of qr_content: 400 for a bad link, 404 for an unknown token. */
export async function saleFromLink(deps: ApiDeps, params: { v?: unknown; t?: unknown; m?: unknown }): Promise<Sale> {
  const check = verifyQrLink(params, [deps.config.qrHmacKey, ...deps.config.qrHmacPreviousKeys]);
  if (!check.ok) {
    throw check.reason === 'unsupported_version'
      ? new AppError(400, 'unsupported_version', 'This QR link version is not supported.')
      : new AppError(400, 'invalid_signature', 'This QR link is not valid; scan the QR again.');
  }
  const sale = await findSale(deps.db, { token: check.token });
  if (!sale) throw new AppError(404, 'qr_not_found', 'This QR is not known; ask the store for a new one.');
  return sale;
}

/**
 * The states in which a buyer cannot go on: 410 expired or cancelled, 409 already invoiced (with the
 * invoice's UUID and date, not its files: see buyerInvoiceView), 422 when the store may not invoice (inactive store or issuer).
 */
export async function ensureInvoiceable(deps: ApiDeps, sale: Sale): Promise<void> {
  const t = sale.record.transaction;
  if (t.status === 'INVOICED') {
    const invoice = await liveInvoice(deps.db, t.id);
    throw new AppError(409, 'qr_already_invoiced', 'This sale was already invoiced.', {
      extra: invoice ? { invoice: buyerInvoiceView(invoice) } : {},
    });
  }
  if (t.status === 'CANCELLED') {
    // A buyer who downloaded the invoice must learn it is void: they could otherwise deduct it.
    const cancelled = await cancelledInvoiceOf(deps.db, deps.files, { transactionId: t.id });
    if (cancelled) {
      throw new AppError(
        410,
        'invoice_cancelled',
        `The invoice of this sale (${cancelled.uuid}) was cancelled by the store before SAT on ${cancelled.cancelledAt}: it is void, do not deduct it.`,
        {
          extra: { invoice: { uuid: cancelled.uuid, issued_at: cancelled.issuedAt.toISOString(), cancelled_at: cancelled.cancelledAt } },
        },
      );
    }
    throw new AppError(410, 'qr_cancelled', 'This QR was cancelled by the store.');
  }
  if (t.global_invoice_id)
    throw new AppError(410, 'qr_globally_invoiced', "Nobody invoiced this sale in time: it was reported in the store's global invoice to público en general.");
  if (isExpired(t, new Date())) {
    throw new AppError(410, 'qr_expired', 'This QR has expired; ask the store for a new one.');
  }
  if (sale.merchant.status !== 'ACTIVE' || sale.issuer.status !== 'ACTIVE') {
    throw new AppError(422, 'store_inactive', 'This store cannot issue invoices at the moment; contact the store.');
  }
}
