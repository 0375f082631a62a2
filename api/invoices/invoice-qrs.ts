/**
 * A merchant invoices several of its QR sales (or one) in one CFDI for a known customer (issue #17):
 * the same checks and the same recording as a buyer's confirmation, with a dry run that answers the totals.
 */
import { isDeepStrictEqual } from 'node:util';
import { AppError, type ErrorDetail } from '../../shared/platform/errors.js';
import { newId } from '../../shared/platform/ids.js';
import { confirmationView, ticketSummaryView } from '../contract/buyer/buyer-sale-view.js';
import { checkCustomer, sameCustomer } from '../../shared/invoices/check-customer.js';
import { queueConfirmedStamp } from '../../shared/invoices/stamp-batcher.js';
import type { InvoiceQrsRequest } from '../contract/qrs/invoice-qrs-schema.js';
import { previewSale } from '../../shared/invoices/seal-sale.js';
import { saleReviewDigest } from '../../shared/invoices/review-digest.js';
import { totalsView } from '../contract/invoices/totals-view.js';
import type { ApiKeyPrincipal } from '../../shared/repositories/api-keys.js';
import { invoiceTicketIds, liveInvoice, recordConfirmation } from '../../shared/repositories/invoices.js';
import { expeditionPlace, findSale } from '../../shared/repositories/sales.js';
import { satToday } from '../../shared/domain/time-zone.js';
import { saleParties } from '../buyer/review-sale.js';
import { viewContext, type ApiDeps } from '../deps.js';
import { combinedSale, ticketsTaken, type FurtherTicket, type TicketField } from './ticket-set.js';

const qrIdField: TicketField = (index) => `qr_ids[${index}]`;

export type InvoiceQrsResult = { status: 200 | 202; body: Record<string, unknown> };

/**
 * The same request again (same QRs in the same order, same customer) after it was recorded: the answer of
 * the first call, with the invoice once stamped. A POS retrying after a lost answer creates nothing twice.
 */
async function replayed(deps: ApiDeps, tickets: readonly FurtherTicket[], request: InvoiceQrsRequest): Promise<InvoiceQrsResult | undefined> {
  const sales = tickets.flatMap((t) => ('sale' in t ? [t.sale] : []));
  const [first] = sales;
  if (!first || sales.length !== tickets.length || request.dry_run) return undefined;
  const live = await liveInvoice(deps.db, first.record.transaction.id);
  if (!live) return undefined;
  const checked = checkCustomer(request.customer, { catalogs: deps.catalogs, expeditionPlace: expeditionPlace(first), onDate: satToday(), rules: first.merchant.invoiceRules });
  if (!sameCustomer(live.customer, checked.customer) || !isDeepStrictEqual(await invoiceTicketIds(deps.db, live.id), request.qr_ids)) return undefined;
  return { status: 202, body: { qr_ids: request.qr_ids, tickets: sales.map(ticketSummaryView), ...confirmationView(live, viewContext(deps)) } };
}

export async function invoiceQrs(deps: ApiDeps, principal: ApiKeyPrincipal, request: InvoiceQrsRequest, log: { warn(obj: object, msg: string): void }): Promise<InvoiceQrsResult> {
  const tickets = (await Promise.all(
    request.qr_ids.map(async (id): Promise<FurtherTicket> => {
      const sale = await findSale(deps.db, { id });
      // Another merchant's or another mode's sale is as unknown as a made-up id.
      if (!sale || sale.merchant.id !== principal.merchantId || sale.record.transaction.mode !== principal.mode)
        return { missing: { code: 'qr_not_found', message: `No QR transaction ${id} for this API key.` } };
      return { sale };
    }),
  )) as [FurtherTicket, ...FurtherTicket[]];
  const replay = await replayed(deps, tickets, request);
  if (replay) return replay;
  const { record, sales } = combinedSale(tickets, qrIdField);
  const [first] = sales;
  const checked = checkCustomer(request.customer, { catalogs: deps.catalogs, expeditionPlace: expeditionPlace(first), onDate: satToday(), rules: first.merchant.invoiceRules });
  if (checked.findings.length > 0) throw new AppError(422, 'customer_invalid', 'Some tax data needs correcting.', { details: checked.findings });
  const summary = { qr_ids: request.qr_ids, tickets: sales.map(ticketSummaryView) };

  const totals = previewSale(record, checked.customer, saleParties(first), deps.catalogs);
  const review = {
    ...summary,
    customer: checked.customer,
    totals: totalsView(totals),
    warnings: checked.warnings satisfies ErrorDetail[],
    review_digest: saleReviewDigest(
      sales.map((s) => s.record),
      checked.customer,
      totals,
    ),
  };
  if (request.dry_run) return { status: 200, body: { dry_run: true, ...review } };
  // Optional here (every input is in the request), but when sent only what the dry run showed is stamped.
  if (request.review_digest !== undefined && request.review_digest !== review.review_digest)
    throw new AppError(409, 'review_outdated', 'What would be stamped differs from what the dry run showed; check the new totals and send again.', {
      extra: { review: { dry_run: true, ...review } },
    });

  const invoiceId = newId('invoice');
  const outcome = await recordConfirmation(deps.db, {
    invoiceId,
    transactionIds: [first.record.transaction.id, ...sales.slice(1).map((s) => s.record.transaction.id)],
    merchantId: first.merchant.id,
    customer: checked.customer,
  });
  if (!outcome.ok) {
    switch (outcome.reason) {
      case 'tickets_unavailable':
        throw ticketsTaken(outcome.problems, qrIdField);
      case 'invoiced':
      case 'already_confirmed': {
        // A retry of the same request (same first ticket, same customer) answers as the first did.
        if (!outcome.invoice || !sameCustomer(outcome.invoice.customer, checked.customer))
          throw new AppError(409, 'already_confirmed', 'The first QR of this list is already being invoiced or was invoiced.', {
            details: [{ field: qrIdField(0), code: 'already_confirmed', message: 'This QR is already in another invoice.' }],
            extra: { confirmation: confirmationView(outcome.invoice, viewContext(deps)) },
          });
        return { status: 202, body: { ...summary, ...confirmationView(outcome.invoice, viewContext(deps)) } };
      }
      default:
        // Expired, cancelled or gone between the check and the lock.
        throw ticketsTaken([{ index: 0, reason: outcome.reason }], qrIdField);
    }
  }
  await queueConfirmedStamp(deps.producers, deps.config.stampBatchMs, invoiceId).catch((err: unknown) =>
    log.warn({ err, invoice_id: invoiceId }, 'stamp job not queued; the sweep will'),
  );
  return { status: 202, body: { ...summary, ...confirmationView(outcome.invoice, viewContext(deps)) } };
}
