import { isExpired } from '../../shared/domain/qr-lifecycle.js';
import { AppError } from '../../shared/platform/errors.js';
import { buyerInvoiceView } from '../contract/buyer/buyer-sale-view.js';
import { verifyQrLink } from '../../shared/qr/qr-link.js';
import { liveInvoice } from '../../shared/repositories/invoices.js';
import { cancelledInvoiceOf } from '../../shared/cancellation/cancelled-invoice.js';
import { findSale, type Sale } from '../../shared/repositories/sales.js';
import { onReplicaOrPrimary, type Db } from '../../shared/platform/db.js';
import type { ApiDeps } from '../deps.js';

type LinkParams = { v?: unknown; t?: unknown; m?: unknown };

/** The link's token: 400 for a bad link. */
function linkToken(deps: ApiDeps, params: LinkParams): string {
  const check = verifyQrLink(params, [deps.config.qrHmacKey, ...deps.config.qrHmacPreviousKeys]);
  if (!check.ok) {
    throw check.reason === 'unsupported_version'
      ? new AppError(400, 'unsupported_version', 'This QR link version is not supported.')
      : new AppError(400, 'invalid_signature', 'This QR link is not valid; scan the QR again.');
  }
  return check.token;
}

const unknownQr = () => new AppError(404, 'qr_not_found', 'This QR is not known; ask the store for a new one.');

/** The sale behind the three parameters of qr_content, read on the primary: 400 for a bad link, 404 for an unknown token. */
export async function saleFromLink(deps: ApiDeps, params: LinkParams): Promise<Sale> {
  const sale = await findSale(deps.db, { token: linkToken(deps, params) });
  if (!sale) throw unknownQr();
  return sale;
}

/**
 * saleFromLink for what only shows the sale (the buyer's page, resolve, the tickets' totals, preview): read on the
 * replica, and on the primary when the replica has not replayed it yet (a buyer scanning the QR the moment it is
 * printed). `db`: the handle it came from, for the reads that follow. A state the replica shows late is harmless
 * here: confirm reads and locks the sale on the primary and answers from there.
 */
export async function saleToShow(deps: ApiDeps, params: LinkParams): Promise<{ sale: Sale; db: Db }> {
  const token = linkToken(deps, params);
  const read = await onReplicaOrPrimary(deps, (db) => findSale(db, { token }));
  if (!read) throw unknownQr();
  return { sale: read.found, db: read.db };
}

/**
 * The states in which a buyer cannot go on: 410 expired or cancelled, 409 already invoiced (with the
 * invoice's UUID and date, not its files: see buyerInvoiceView), 422 when the store may not invoice (inactive store or issuer).
 * `db`: where the sale was read (saleToShow's replica), the primary otherwise.
 */
export async function ensureInvoiceable(deps: ApiDeps, sale: Sale, db: Db = deps.db): Promise<void> {
  const t = sale.record.transaction;
  if (t.status === 'INVOICED') {
    const invoice = await liveInvoice(db, t.id);
    throw new AppError(409, 'qr_already_invoiced', 'This sale was already invoiced.', {
      extra: invoice ? { invoice: buyerInvoiceView(invoice) } : {},
    });
  }
  if (t.status === 'CANCELLED') {
    // A buyer who downloaded the invoice must learn it is void: they could otherwise deduct it.
    const cancelled = await cancelledInvoiceOf(db, deps.files, { transactionId: t.id });
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
