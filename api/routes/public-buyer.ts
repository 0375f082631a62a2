import type { Router } from '@koa/router';
import { AppError, type ErrorDetail } from '../../shared/platform/errors.js';
import { newId } from '../../shared/platform/ids.js';
import { buyerConfirmationView, ticketSummaryView } from '../contract/buyer/buyer-sale-view.js';
import { totalsView } from '../contract/invoices/totals-view.js';
import { checkCustomer, sameCustomer } from '../../shared/invoices/check-customer.js';
import { confirmRequestSchema, emailRequestSchema, previewRequestSchema, ticketsRequestSchema, type PreviewRequest } from '../contract/buyer/customer-schema.js';
import type { Customer } from '../../shared/invoices/customer.js';
import { previewSale } from '../../shared/invoices/seal-sale.js';
import { saleReviewDigest } from '../../shared/invoices/review-digest.js';
import { queueConfirmedStamp } from '../../shared/invoices/stamp-batcher.js';
import { enqueueInvoiceEmail } from '../../shared/invoices/enqueue-follow-ups.js';
import { invoiceEmailRecipient, maskedAddress } from '../../shared/invoices/email-recipient.js';
import { countInvoiceEmail } from '../buyer/email-quota.js';
import { latestInvoice, liveInvoice, recordConfirmation } from '../../shared/repositories/invoices.js';
import { expeditionPlace, type Sale } from '../../shared/repositories/sales.js';
import { satToday } from '../../shared/domain/time-zone.js';
import { validator } from '../../shared/platform/validation/ajv.js';
import { ensureInvoiceable, saleFromLink } from '../buyer/open-sale.js';
import { reviewSale, saleParties } from '../buyer/review-sale.js';
import type { AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { jsonBody } from '../middleware/json-body.js';
import { multipartBody } from '../middleware/multipart-body.js';
import { CSF_MAX_BYTES, prefillFromCsf } from '../buyer/prefill-from-csf.js';
import { ensureCsfLinkOpen } from '../buyer/csf-upload-link.js';
import { rateLimit, shortCodeRateLimit } from '../middleware/rate-limit.js';
import { qrLinkForShortCode } from '../buyer/short-code-link.js';
import { crashAfterCommit } from '../../shared/platform/crash-after-commit.js';
import type { Middleware } from 'koa';
import { invoiceFilesRequestSchema } from '../contract/buyer/invoice-files-schema.js';
import { invoiceFilesForBuyer } from '../buyer/invoice-files-for-buyer.js';
import type { QrTransactionRecord } from '../../shared/repositories/qr-transactions.js';
import { buyerTicketField, buyerTickets, shortCodeLookups } from '../buyer/further-tickets.js';
import { ticketsTaken } from '../invoices/ticket-set.js';
import { PUBLIC_ACCESS } from '../access/public-access.js';
import { apiRouter, routesWith } from '../routing/api-router.js';

const validatePreview = validator(previewRequestSchema);
const validateConfirm = validator(confirmRequestSchema);
const validateEmail = validator(emailRequestSchema);
const validateTickets = validator(ticketsRequestSchema);
const validateInvoiceFiles = validator(invoiceFilesRequestSchema);

interface CheckedConfirmation {
  sale: Sale;
  /** The sale to invoice: the first ticket's, or every ticket's concepts under the first one's header. */
  record: QrTransactionRecord;
  further: Sale[];
  customer: Customer;
  warnings: ErrorDetail[];
  /** What the buyer reviews (the preview's answer), with the digest that confirm must carry back. */
  review: BuyerReview;
}

interface BuyerReview {
  customer: Customer;
  totals: ReturnType<typeof totalsView>;
  warnings: ErrorDetail[];
  tickets: ReturnType<typeof ticketSummaryView>[];
  review_digest: string;
}

/** What preview and confirm both do first: invoiceable QRs, the buyer's data checked (422 per field), the review. */
async function checkedConfirmation(deps: ApiDeps, request: PreviewRequest): Promise<CheckedConfirmation> {
  const sale = await saleFromLink(deps, request);
  await ensureInvoiceable(deps, sale);
  const { record, sales: further } = await buyerTickets(deps, sale, request.additional_tickets);
  const checked = checkCustomer(request.customer, { catalogs: deps.catalogs, expeditionPlace: expeditionPlace(sale), onDate: satToday(), rules: sale.merchant.invoiceRules });
  if (checked.findings.length > 0) throw new AppError(422, 'customer_invalid', 'Some tax data needs correcting.', { details: checked.findings });
  const totals = previewSale(record, checked.customer, saleParties(sale), deps.catalogs);
  const sales = [sale, ...further];
  const review = {
    customer: checked.customer,
    totals: totalsView(totals),
    warnings: checked.warnings,
    // Every ticket with its concepts, the single one too: the review shows exactly what is stamped.
    tickets: sales.map(ticketSummaryView),
    review_digest: saleReviewDigest(
      sales.map((s) => s.record),
      checked.customer,
      totals,
    ),
  };
  return { sale, record, further, customer: checked.customer, warnings: checked.warnings, review };
}

/**
 * Confirm stamps only what the buyer reviewed: the preview's digest must be that of what would be stamped
 * now (other tickets, another customer or changed totals give another digest). 409 with the new review.
 */
function ensureReviewed(review: BuyerReview, digest: string): void {
  if (digest !== review.review_digest)
    throw new AppError(409, 'review_outdated', 'What would be stamped differs from what was reviewed; review the new totals and confirm again.', {
      extra: { review },
    });
}

/**
 * The buyer's routes. No merchant credentials: the signed QR link is the capability. Rate-limited per
 * client IP and per QR token (PUBLIC_RATE_PER_IP / PUBLIC_RATE_PER_TOKEN per minute).
 */
export function publicBuyerRoutes(deps: ApiDeps): Router<AppState> {
  const router = apiRouter('/v1/public/qrs');
  const routes = routesWith(router, PUBLIC_ACCESS);
  const token = (t: unknown): string | undefined => (typeof t === 'string' ? t.slice(0, 64) : undefined);
  // `limited` runs before any body is read: per IP, and per QR when the link is in the query (GET, csf).
  const limited = rateLimit(deps.redis, [
    { scope: 'ip', perMinute: deps.config.publicRatePerIp, key: (ctx) => ctx.ip },
    // An offline ticket's link (csf on its waiting page) has no token: its signature names it.
    { scope: 'qr', perMinute: deps.config.publicRatePerToken, key: (ctx) => token(ctx.query.t) ?? token(ctx.query.m) },
  ]);
  // A JSON body's link is known only once parsed: its per-QR count runs right after the parser (same counter).
  const bodyLimited = rateLimit(deps.redis, [
    { scope: 'qr', perMinute: deps.config.publicRatePerToken, key: (ctx) => (ctx.query.t === undefined ? token((ctx.request.body as { t?: unknown } | undefined)?.t) : undefined) },
  ]);
  const parseJson = jsonBody(deps.config.jsonBodyLimit);
  const body: Middleware<AppState> = async (ctx, next) => {
    await parseJson(ctx, async () => {
      await bodyLimited(ctx, next);
    });
  };
  // The upload's link is in its query and checked, with the sale's state, before a byte of the file is read.
  const uploadLink: Middleware<AppState> = async (ctx, next) => {
    await ensureCsfLinkOpen(deps, ctx.query);
    await next();
  };
  // Each further ticket named by its short code is a code lookup: counted like the page's code form.
  const codeLookups = shortCodeRateLimit(deps, (ctx) => {
    const tickets = (ctx.request.body as { additional_tickets?: unknown } | undefined)?.additional_tickets;
    return Array.isArray(tickets) ? shortCodeLookups(tickets) : 0;
  });

  /** Review. The first resolve moves PENDING to SCANNED. */
  routes.get('/resolve', limited, async (ctx) => {
    const sale = await saleFromLink(deps, ctx.query);
    await ensureInvoiceable(deps, sale);
    ctx.body = await reviewSale(deps, sale);
  });

  /**
   * Several tickets in one invoice: the first one (the link) with the further ones the buyer names, each
   * checked; the tickets and the totals of the invoice they make (before the buyer's data).
   */
  routes.post('/tickets', limited, body, codeLookups, async (ctx) => {
    const request = validateTickets(ctx.request.body);
    const sale = await saleFromLink(deps, request);
    await ensureInvoiceable(deps, sale);
    const { record, sales } = await buyerTickets(deps, sale, request.additional_tickets);
    ctx.body = { tickets: [sale, ...sales].map(ticketSummaryView), totals: totalsView(previewSale(record, undefined, saleParties(sale), deps.catalogs)) };
  });

  /** Dry run of confirm: the same checks, and the totals for this buyer (withholdings may apply). */
  routes.post('/preview', limited, body, codeLookups, async (ctx) => {
    const { review } = await checkedConfirmation(deps, validatePreview(ctx.request.body));
    // `warnings`: what the buyer should look at twice before confirming, though SAT may accept it.
    ctx.body = review;
  });

  /** The one confirming action, of what the preview showed (`review_digest`): 202 while the CFDI is stamped; poll GET /status. */
  routes.post('/confirm', limited, body, codeLookups, async (ctx) => {
    const { review_digest: digest, ...request } = validateConfirm(ctx.request.body);
    const { sale, further, customer, review } = await checkedConfirmation(deps, request);
    ensureReviewed(review, digest);

    const invoiceId = newId('invoice');
    const outcome = await recordConfirmation(deps.db, {
      invoiceId,
      transactionIds: [sale.record.transaction.id, ...further.map((f) => f.record.transaction.id)],
      merchantId: sale.merchant.id,
      customer,
    });
    if (!outcome.ok) {
      switch (outcome.reason) {
        case 'tickets_unavailable':
          throw ticketsTaken(outcome.problems, buyerTicketField);
        case 'expired':
          throw new AppError(410, 'qr_expired', 'This QR has expired; ask the store for a new one.');
        case 'cancelled':
          throw new AppError(410, 'qr_cancelled', 'This QR was cancelled by the store.');
        case 'not_found':
          throw new AppError(404, 'qr_not_found', 'This QR is not known; ask the store for a new one.');
        default: {
          // A double click or a second device with the same data gets the same answer as the first.
          if (!outcome.invoice || !sameCustomer(outcome.invoice.customer, customer))
            throw new AppError(409, 'already_confirmed', 'This sale was already confirmed for invoicing.', {
              extra: { confirmation: buyerConfirmationView(outcome.invoice) },
            });
          ctx.status = 202;
          ctx.body = buyerConfirmationView(outcome.invoice);
          return;
        }
      }
    }
    // The invoice row is durable; if this enqueue is lost the stamping sweep picks it up.
    crashAfterCommit('qr-confirmed');
    await queueConfirmedStamp(deps.producers, deps.config.stampBatchMs, invoiceId).catch((err: unknown) =>
      ctx.state.log.warn({ err, invoice_id: invoiceId }, 'stamp job not queued; the sweep will'),
    );
    ctx.status = 202;
    ctx.body = buyerConfirmationView(outcome.invoice);
  });

  /**
   * "Send to my e-mail": the invoice again, to the address given at confirmation, or to another one with
   * the buyer's RFC; a few times per QR per day (shared/invoices/email-recipient.ts, api/buyer/email-quota.ts).
   */
  routes.post('/email', limited, body, async (ctx) => {
    const request = validateEmail(ctx.request.body);
    const sale = await saleFromLink(deps, request);
    const invoice = await liveInvoice(deps.db, sale.record.transaction.id);
    if (!invoice || invoice.status !== 'ACTIVE' || !invoice.xml_file_key) throw new AppError(409, 'invoice_not_ready', 'The invoice is not ready yet; try again in a moment.');
    await countInvoiceEmail(deps, sale.record.transaction.id);
    const log = { qr_id: sale.record.transaction.id, invoice_id: invoice.id };
    let recipient: { to: string; newAddress: boolean };
    try {
      recipient = invoiceEmailRecipient(request, invoice.customer);
    } catch (err) {
      ctx.state.log.warn({ ...log, code: (err as AppError).code }, 'invoice e-mail refused');
      throw err;
    }
    await enqueueInvoiceEmail(deps.producers, invoice.id, recipient.to);
    ctx.state.log.info({ ...log, recipient: recipient.newAddress ? 'new_address' : 'confirmation_address' }, 'invoice e-mail requested');
    ctx.status = 202;
    ctx.body = { status: 'QUEUED', to: maskedAddress(recipient.to) };
  });

  /**
   * Prefill from the buyer's tax-status certificate (PDF or photo, multipart field `document`; the QR
   * link's parameters in the query: a sale's v, t and m, or an offline ticket's). Only for a sale that can
   * still be invoiced, or an offline ticket still waiting for its sale; the file is not kept.
   */
  routes.post('/csf', limited, uploadLink, multipartBody({ maxFileBytes: CSF_MAX_BYTES, maxFiles: 1 }), async (ctx) => {
    const form = ctx.state.form!;
    // Again after the upload: the sale may have been confirmed meanwhile.
    await ensureCsfLinkOpen(deps, ctx.query);
    const document = form.files.document;
    if (!document)
      throw new AppError(400, 'document_required', 'Attach the tax-status certificate as the multipart field "document".', {
        details: [{ field: 'document', code: 'required', message: 'document is required.' }],
      });
    ctx.body = await prefillFromCsf(deps, document.data);
  });

  /**
   * The invoice's XML and PDF links (valid one hour) for whoever proves the buyer's RFC: the ticket alone
   * only shows that the sale is invoiced (api/buyer/invoice-files-for-buyer.ts).
   */
  routes.post('/invoice-files', limited, body, async (ctx) => {
    const request = validateInvoiceFiles(ctx.request.body);
    const sale = await saleFromLink(deps, request);
    ctx.body = await invoiceFilesForBuyer(deps, sale, request.rfc);
  });

  /** The QR link of a short code typed from the ticket (for apps; the page redirects at /q?code=). */
  routes.get('/code/:code', shortCodeRateLimit(deps), async (ctx) => {
    ctx.body = { qr_content: await qrLinkForShortCode(deps, ctx.params.code) };
  });

  /** Where the confirmation stands (the page polls this). */
  routes.get('/status', limited, async (ctx) => {
    const sale = await saleFromLink(deps, ctx.query);
    const latest = await latestInvoice(deps.db, sale.record.transaction.id);
    ctx.body = { status: sale.record.transaction.status, expires_at: sale.record.transaction.expires_at.toISOString(), confirmation: buyerConfirmationView(latest) };
  });

  return router;
}
