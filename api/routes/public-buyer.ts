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
import { ensureInvoiceable, saleFromLink, saleToShow } from '../buyer/open-sale.js';
import { reviewSale, saleParties } from '../buyer/review-sale.js';
import type { ApiDeps } from '../deps.js';
import { CSF_MAX_BYTES, prefillFromCsf } from '../buyer/prefill-from-csf.js';
import { ensureCsfLinkOpen } from '../buyer/csf-upload-link.js';
import { furtherTicketLookupRate, publicBodyLinkRate, publicLinkRate, shortCodeRate } from '../access/rate-rules.js';
import { publicRule } from '../access/access-rules.js';
import { errorResponse, json, qrLinkQuery } from '../routing/openapi-parts.js';
import { jsonRequest } from '../routing/request-body.js';
import { defineRoute } from '../routing/route.js';
import { formBody } from '../openapi-forms.js';
import { qrLinkForShortCode } from '../buyer/short-code-link.js';
import { crashAfterCommit } from '../../shared/platform/crash-after-commit.js';
import { invoiceFilesRequestSchema } from '../contract/buyer/invoice-files-schema.js';
import { invoiceFilesForBuyer } from '../buyer/invoice-files-for-buyer.js';
import type { QrTransactionRecord } from '../../shared/repositories/qr-transactions.js';
import { buyerTicketField, buyerTickets } from '../buyer/further-tickets.js';
import { ticketsTaken } from '../invoices/ticket-set.js';

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

/**
 * What preview and confirm both do first: invoiceable QRs, the buyer's data checked (422 per field), the review.
 * Preview reads on the replica (saleToShow); confirm on the primary, whose review is the one compared.
 */
async function checkedConfirmation(deps: ApiDeps, request: PreviewRequest, reads: 'replica' | 'primary'): Promise<CheckedConfirmation> {
  const { sale, db } = reads === 'replica' ? await saleToShow(deps, request) : { sale: await saleFromLink(deps, request), db: deps.db };
  await ensureInvoiceable(deps, sale, db);
  const { record, sales: further } = await buyerTickets(deps, sale, request.additional_tickets, db);
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

/** A JSON body's routes: the link's limits, then its body's (counted once parsed). */
const BODY_RATES = [publicLinkRate, publicBodyLinkRate];

/**
 * The buyer's routes under /v1/public/qrs. No merchant credentials: the signed QR link is the capability.
 * Rate-limited per client IP and per QR token (PUBLIC_RATE_PER_IP / PUBLIC_RATE_PER_TOKEN per minute).
 */
export const publicBuyerRoutes = [
  /** Review. The first resolve moves PENDING to SCANNED. */
  defineRoute({
    method: 'get',
    path: '/v1/public/qrs/resolve',
    access: publicRule,
    rate: [publicLinkRate],
    operationId: 'resolveBuyerQr',
    summary: 'Buyer: what to review (the first resolve moves PENDING to SCANNED)',
    parameters: qrLinkQuery,
    responses: {
      200: { description: 'Merchant, issuer, concepts, taxes, totals, expiry and the state of any confirmation', content: json('BuyerSale') },
      400: errorResponse('Bad signature or version'),
      404: errorResponse('Unknown QR'),
      409: errorResponse('`qr_already_invoiced`, with `invoice` (`uuid`, `issued_at`, …; no files: POST /v1/public/qrs/invoice-files with the buyer’s RFC)'),
      410: errorResponse(
        "Expired (`qr_expired`), cancelled before any invoice (`qr_cancelled`), or its invoice cancelled (`invoice_cancelled`, with `invoice`: `uuid`, `issued_at`, `cancelled_at` the acuse's date)",
      ),
      422: errorResponse('`store_inactive`: the store or its issuer cannot invoice now'),
    },
    handle: (deps) => async (ctx) => {
      const { sale, db } = await saleToShow(deps, ctx.query);
      await ensureInvoiceable(deps, sale, db);
      ctx.body = await reviewSale(deps, sale, db);
    },
  }),
  /**
   * Several tickets in one invoice: the first one (the link) with the further ones the buyer names, each
   * checked; the tickets and the totals of the invoice they make (before the buyer's data).
   */
  defineRoute({
    method: 'post',
    path: '/v1/public/qrs/tickets',
    access: publicRule,
    rate: [...BODY_RATES, furtherTicketLookupRate],
    body: jsonRequest(ticketsRequestSchema),
    operationId: 'reviewBuyerTickets',
    summary: 'Buyer: add further tickets (short code or QR link) to invoice in the same CFDI; every ticket and the totals of that invoice',
    requestBody: { required: true, content: json('ReviewTicketsRequest') },
    responses: {
      200: { description: '`tickets` (the first one and each further one: store, date, concepts, amount) and `totals`', content: json('TicketsReview') },
      400: errorResponse('Invalid body or link'),
      409: errorResponse('`qr_already_invoiced`: the first ticket is already invoiced'),
      410: errorResponse('The first ticket expired or was cancelled'),
      422: errorResponse('`tickets_not_combinable`: one detail per further ticket that cannot join (`additional_tickets[i]`)'),
    },
    handle: (deps) => async (ctx) => {
      const request = ctx.state.body;
      const { sale, db } = await saleToShow(deps, request);
      await ensureInvoiceable(deps, sale, db);
      const { record, sales } = await buyerTickets(deps, sale, request.additional_tickets, db);
      ctx.body = { tickets: [sale, ...sales].map(ticketSummaryView), totals: totalsView(previewSale(record, undefined, saleParties(sale), deps.catalogs)) };
    },
  }),
  /** Dry run of confirm: the same checks, and the totals for this buyer (withholdings may apply). */
  defineRoute({
    method: 'post',
    path: '/v1/public/qrs/preview',
    access: publicRule,
    rate: [...BODY_RATES, furtherTicketLookupRate],
    body: jsonRequest(previewRequestSchema),
    operationId: 'previewBuyerInvoice',
    summary: 'Buyer: check the tax data and see what confirm would stamp (every ticket, the totals for this buyer), without confirming',
    requestBody: { required: true, content: json('PreviewQrRequest') },
    responses: {
      200: {
        description: '`customer` as it will be written, every ticket with its concepts, `totals`, and the `review_digest` that confirm must carry',
        content: json('BuyerPreview'),
      },
      400: errorResponse('Invalid body'),
      409: errorResponse('`qr_already_invoiced`: the sale is already invoiced'),
      410: errorResponse('Expired or cancelled'),
      422: errorResponse('`customer_invalid`: tax data to correct, per field; or `tickets_not_combinable` for `additional_tickets`'),
    },
    handle: (deps) => async (ctx) => {
      const { review } = await checkedConfirmation(deps, ctx.state.body, 'replica');
      // `warnings`: what the buyer should look at twice before confirming, though SAT may accept it.
      ctx.body = review;
    },
  }),
  /** The one confirming action, of what the preview showed (`review_digest`): 202 while the CFDI is stamped; poll GET /status. */
  defineRoute({
    method: 'post',
    path: '/v1/public/qrs/confirm',
    access: publicRule,
    rate: [...BODY_RATES, furtherTicketLookupRate],
    body: jsonRequest(confirmRequestSchema),
    operationId: 'confirmBuyerInvoice',
    summary: 'Buyer: confirm once what the preview showed (its `review_digest`); the CFDI is sealed and stamped in the background',
    requestBody: { required: true, content: json('ConfirmQrRequest') },
    responses: {
      202: { description: 'Accepted: `status` STAMPING; poll /v1/public/qrs/status', content: json('BuyerConfirmation') },
      400: errorResponse('Invalid body or link (`review_digest` missing: preview first)'),
      409: errorResponse(
        '`review_outdated`: what would be stamped now (tickets, concepts, customer or totals) differs from the preview whose `review_digest` was sent; `review` is the new preview answer (show it, then confirm with its `review_digest`); nothing recorded. `already_confirmed` (with `confirmation`): confirmed with other data; `qr_already_invoiced`',
      ),
      410: errorResponse('Expired or cancelled'),
      422: errorResponse('`customer_invalid`: tax data to correct, per field (`source` service); or `tickets_not_combinable` for `additional_tickets`'),
    },
    handle: (deps) => async (ctx) => {
      const { review_digest: digest, ...request } = ctx.state.body;
      const { sale, further, customer, review } = await checkedConfirmation(deps, request, 'primary');
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
    },
  }),
  /**
   * "Send to my e-mail": the invoice again, to the address given at confirmation, or to another one with
   * the buyer's RFC; a few times per QR per day (shared/invoices/email-recipient.ts, api/buyer/email-quota.ts).
   */
  defineRoute({
    method: 'post',
    path: '/v1/public/qrs/email',
    access: publicRule,
    rate: BODY_RATES,
    body: jsonRequest(emailRequestSchema),
    operationId: 'emailBuyerInvoice',
    summary: "Buyer: send the invoice (XML and PDF) by e-mail again, to the confirmation's address, or another one with the buyer's RFC",
    requestBody: { required: true, content: json('EmailInvoiceRequest') },
    responses: {
      202: { description: 'Queued; `to` is the address masked (`j•••@example.com`)', content: json('EmailQueued') },
      400: errorResponse('Invalid body or link'),
      403: errorResponse(
        "Another address without the buyer's RFC (`buyer_rfc_required`), with another RFC (`buyer_rfc_mismatch`), or for an invoice to a generic RFC, which proves nobody (`buyer_rfc_generic`)",
      ),
      409: errorResponse('`invoice_not_ready`: no stamped invoice yet'),
      429: errorResponse('`email_limit_reached`: EMAIL_SENDS_PER_QR_PER_DAY requests for this QR today (Retry-After)'),
    },
    handle: (deps) => async (ctx) => {
      const request = ctx.state.body;
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
    },
  }),
  /** Where the confirmation stands (the page polls this). */
  defineRoute({
    method: 'get',
    path: '/v1/public/qrs/status',
    access: publicRule,
    rate: [publicLinkRate],
    operationId: 'getBuyerQrStatus',
    summary:
      'Buyer: the QR status and its confirmation (STAMPING, REFUSED with the fields to correct, ACTIVE with the invoice’s UUID and date; its files: POST /v1/public/qrs/invoice-files)',
    parameters: qrLinkQuery,
    responses: { 200: { description: 'Status', content: json('BuyerQrStatus') }, 400: errorResponse('Bad link'), 404: errorResponse('Unknown QR') },
    handle: (deps) => async (ctx) => {
      const sale = await saleFromLink(deps, ctx.query);
      const latest = await latestInvoice(deps.db, sale.record.transaction.id);
      ctx.body = { status: sale.record.transaction.status, expires_at: sale.record.transaction.expires_at.toISOString(), confirmation: buyerConfirmationView(latest) };
    },
  }),
  /**
   * The invoice's XML and PDF links (valid one hour) for whoever proves the buyer's RFC: the ticket alone
   * only shows that the sale is invoiced (api/buyer/invoice-files-for-buyer.ts).
   */
  defineRoute({
    method: 'post',
    path: '/v1/public/qrs/invoice-files',
    access: publicRule,
    rate: BODY_RATES,
    body: jsonRequest(invoiceFilesRequestSchema),
    operationId: 'getBuyerInvoiceFiles',
    summary: "Buyer: the invoice's XML and PDF links (valid one hour) for whoever proves the buyer's RFC; the ticket alone only shows that the sale is invoiced",
    requestBody: { required: true, content: json('BuyerInvoiceFilesRequest') },
    responses: {
      200: { description: '`xml_url`, `pdf_url` and when they expire', content: json('BuyerInvoiceFiles') },
      400: errorResponse('Invalid body or link'),
      403: errorResponse('`buyer_rfc_mismatch`: not the RFC on the invoice; `buyer_rfc_generic`: an invoice to a generic RFC (its files are only in the e-mail)'),
      404: errorResponse('Unknown QR'),
      409: errorResponse('`invoice_not_ready`: no stamped invoice (yet)'),
      429: errorResponse('`rfc_attempts_exceeded`: 10 wrong RFCs for this QR today (Retry-After)'),
    },
    handle: (deps) => async (ctx) => {
      const request = ctx.state.body;
      const sale = await saleFromLink(deps, request);
      ctx.body = await invoiceFilesForBuyer(deps, sale, request.rfc);
    },
  }),
  /** The QR link of a short code typed from the ticket (for apps; the page redirects at /q?code=). */
  defineRoute({
    method: 'get',
    path: '/v1/public/qrs/code/{code}',
    access: publicRule,
    rate: [shortCodeRate],
    operationId: 'findQrByShortCode',
    summary: "Buyer: the `qr_content` link of the sale a ticket's `short_code` names (any case, with or without the dash). Limited per IP (`PUBLIC_CODE_RATE_PER_IP`, 10 a minute)",
    responses: {
      200: { description: "The sale's link", content: json('QrLink') },
      400: errorResponse('`invalid_short_code`: not 10 (or, printed offline, 12) symbols of the code alphabet'),
      404: errorResponse('`short_code_not_found`, or `offline_code_not_arrived`: a 12-symbol code of a ticket printed offline whose sale the store has not sent yet'),
    },
    handle: (deps) => async (ctx) => {
      ctx.body = { qr_content: await qrLinkForShortCode(deps, ctx.params.code) };
    },
  }),
  /**
   * Prefill from the buyer's tax-status certificate (PDF or photo, multipart field `document`; the QR
   * link's parameters in the query: a sale's v, t and m, or an offline ticket's). Only for a sale that can
   * still be invoiced, or an offline ticket still waiting for its sale; the file is not kept.
   */
  defineRoute({
    method: 'post',
    path: '/v1/public/qrs/csf',
    access: publicRule,
    rate: [publicLinkRate],
    // The upload's link is in its query and checked, with the sale's state, before a byte of the file is read.
    beforeBody: (deps) => async (ctx, next) => {
      await ensureCsfLinkOpen(deps, ctx.query);
      await next();
    },
    form: { maxFileBytes: CSF_MAX_BYTES, maxFiles: 1 },
    operationId: 'prefillFromCsf',
    summary: 'Buyer: prefill the tax data from the tax-status certificate (CSF)',
    description:
      "The QR of the uploaded CSF (or, as a fallback, the PDF's text) gives RFC and idCIF; SAT's current data is answered: `rfc`, `name`, `postal_code`, `status`, `tax_regimes` [{code, description}] (only this RFC's), `read_from` (qr | text). The file is never stored. The QR link goes in the query — a sale's `v`, `t`, `m`, or an offline ticket's `v=2`, `k`, `w`, `a`, `s`, `m` (its waiting page) —: it, the sale's or ticket's state and the limits are checked before the upload is read.",
    parameters: [
      ...qrLinkQuery.map((p) => (p.name === 'v' || p.name === 'm' ? p : { ...p, required: false })),
      ...['k', 'w', 'a', 's'].map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' }, description: `An offline ticket's \`${name}\` (v=2)` })),
    ],
    requestBody: formBody('CsfUploadForm'),
    responses: {
      200: { description: 'The data to prefill', content: json('CsfPrefill') },
      400: errorResponse('Bad link or no document'),
      404: errorResponse('`csf_not_found`: SAT does not know this RFC and idCIF'),
      409: errorResponse('`qr_already_invoiced`: the sale is already invoiced'),
      410: errorResponse('Expired or cancelled; an offline ticket that can no longer be invoiced (`offline_ticket_closed`)'),
      413: errorResponse('File too large'),
      415: errorResponse('Not multipart/form-data'),
      422: errorResponse('`csf_unreadable`: not a PDF or image, or no CSF found in it'),
      503: errorResponse("`csf_unavailable`: SAT's service is not answering"),
    },
    handle: (deps) => async (ctx) => {
      // Again after the upload: the sale may have been confirmed meanwhile.
      await ensureCsfLinkOpen(deps, ctx.query);
      const document = ctx.state.form.files.document;
      if (!document)
        throw new AppError(400, 'document_required', 'Attach the tax-status certificate as the multipart field "document".', {
          details: [{ field: 'document', code: 'required', message: 'document is required.' }],
        });
      ctx.body = await prefillFromCsf(deps, document.data);
    },
  }),
];
