import { cancellationTerms } from '../../shared/cancellation/cancellation-terms.js';
import type { CancelInvoiceRequest } from '../contract/invoices/cancellation-schema.js';
import { cancellationView } from '../contract/invoices/cancellation-view.js';
import { enqueueCancellation } from '../../shared/cancellation/enqueue-cancellation.js';
import { stampedFacts, type StampedFacts } from '../../shared/cancellation/stamped-facts.js';
import { AppError, type ErrorDetail } from '../../shared/platform/errors.js';
import { isGlobalInvoice } from '../../shared/repositories/global-invoices.js';
import { latestCancellation, requestCancellation, type CancellationRow } from '../../shared/repositories/invoice-cancellations.js';
import { findInvoiceByUuid, type InvoiceRow, type InvoiceStatus } from '../../shared/repositories/invoices.js';
import type { ApiDeps } from '../deps.js';

export type InvoiceScope = { merchantId: string } | { accountId: string };

function invalid(detail: ErrorDetail): AppError {
  return new AppError(400, 'validation_failed', 'The cancellation request has invalid fields.', { details: [detail] });
}

async function factsOf(deps: ApiDeps, invoice: InvoiceRow): Promise<StampedFacts> {
  const file = invoice.xml_file_key ? await deps.files.get(invoice.xml_file_key) : undefined;
  if (!file) throw new Error(`invoice ${invoice.id} has no stored XML`);
  return stampedFacts(file.data.toString('utf8'));
}

/** Motive 01: the replacing CFDI must be stamped, of the same issuer, and relate to this one with TipoRelacion 04. */
async function checkSubstitute(deps: ApiDeps, scope: InvoiceScope, invoice: InvoiceRow, facts: StampedFacts, substitutionUuid: string): Promise<void> {
  const refuse = (code: string, message: string) =>
    new AppError(422, 'substitution_invalid', message, {
      details: [{ field: 'substitution_uuid', code, message }],
    });
  const uuid = substitutionUuid.toUpperCase();
  if (uuid === invoice.uuid) throw refuse('same_invoice', 'An invoice cannot replace itself.');
  const substitute = await findInvoiceByUuid(deps.db, uuid, scope);
  if (!substitute) throw refuse('not_found', `No stamped invoice with UUID ${uuid} for these credentials.`);
  if (substitute.status !== 'ACTIVE') throw refuse('not_active', `The invoice ${uuid} is ${substitute.status}, not a valid replacement.`);
  const replacing = await factsOf(deps, substitute);
  if (replacing.issuerRfc !== facts.issuerRfc) throw refuse('other_issuer', `The invoice ${uuid} was issued by another RFC.`);
  if (!replacing.related.some((r) => r.type === '04' && r.uuid === invoice.uuid)) {
    throw refuse('not_related', `The invoice ${uuid} does not relate to ${invoice.uuid} with TipoRelacion 04 (sustitución), as SAT requires for motive 01.`);
  }
}

/** The answer to a request for an invoice already under `existing`: the same request gets its state, another one 409. */
function existingAnswer(uuid: string, invoiceStatus: InvoiceStatus, existing: CancellationRow, request: CancelInvoiceRequest) {
  const same = existing.motive === request.motive && (existing.substitution_uuid ?? '') === (request.substitution_uuid ?? '').toUpperCase();
  if (!same) {
    throw new AppError(409, 'cancellation_conflict', `This invoice is already ${invoiceStatus} under motive ${existing.motive}; a different request cannot be made now.`);
  }
  return { status: existing.status === 'CANCELLED' ? 200 : 202, body: cancellationView(uuid, invoiceStatus, existing) };
}

/**
 * DELETE /v1/qrs/invoices/{uuid}: checks the request against SAT's rules, records it and queues the job
 * that sends it to the PAC. The answer says whether SAT will cancel at once or ask the receptor.
 * The same request again answers the state it is in; another one while it is open or done is 409.
 */
export async function cancelInvoice(deps: ApiDeps, scope: InvoiceScope, uuid: string, request: CancelInvoiceRequest, now = new Date()) {
  if (request.motive === '01' && !request.substitution_uuid) {
    throw invalid({ field: 'substitution_uuid', code: 'required', message: 'substitution_uuid is required with motive 01.' });
  }
  if (request.motive !== '01' && request.substitution_uuid) {
    throw invalid({ field: 'substitution_uuid', code: 'not_allowed', message: 'substitution_uuid goes only with motive 01.' });
  }
  const invoice = await findInvoiceByUuid(deps.db, uuid, scope);
  if (!invoice || !invoice.uuid || !invoice.stamped_at) throw new AppError(404, 'invoice_not_found', `No invoice with UUID ${uuid} for these credentials.`);

  const earlier = invoice.status === 'ACTIVE' || invoice.status === 'CANCELLATION_REJECTED' ? undefined : await latestCancellation(deps.db, invoice.id);
  if (earlier) return existingAnswer(invoice.uuid, invoice.status, earlier, request);

  // Motive 04 cancels a global invoice whose sale is being invoiced to its buyer after all.
  if (request.motive === '04' && !(await isGlobalInvoice(deps.db, invoice.id))) {
    throw new AppError(422, 'motive_not_applicable', 'Motive 04 (nominative operation related in a global invoice) cancels only a global invoice.', {
      details: [{ field: 'motive', code: 'not_a_global_invoice', message: 'Use 02 or 03 for this invoice, or 01 with its replacement.' }],
    });
  }
  const facts = await factsOf(deps, invoice);
  if (request.substitution_uuid) await checkSubstitute(deps, scope, invoice, facts, request.substitution_uuid);
  const terms = cancellationTerms({ ...facts, stampedAt: invoice.stamped_at, now });
  if (!terms.cancellable) {
    throw new AppError(
      422,
      'cancellation_period_over',
      `SAT accepts cancellations of this invoice until ${terms.deadline.toISOString()} (the month the issuer's annual return is due).`,
    );
  }
  const recorded = await requestCancellation(deps.db, invoice, {
    motive: request.motive,
    substitutionUuid: request.substitution_uuid?.toUpperCase(),
    acceptance: terms.acceptance,
    acceptanceReason: terms.reason,
  });
  if (!recorded.ok && recorded.reason === 'related_active') {
    throw new AppError(409, 'related_cfdis_active', `Cancel the credit notes and payment complements that relate to this invoice first: ${recorded.related.join(', ')}.`);
  }
  if (!recorded.ok) throw new AppError(409, 'invoice_not_cancellable', 'This invoice is not stamped.');
  // Another DELETE got there first.
  if (!recorded.created) return existingAnswer(invoice.uuid, recorded.invoiceStatus, recorded.cancellation, request);
  // Recorded first: if Redis cannot take the job now, the cancellation poll finds the request and queues it.
  await enqueueCancellation(deps.producers, recorded.cancellation.id).catch((err: unknown) =>
    deps.logger.warn({ err, cancellation_id: recorded.cancellation.id }, 'cancellation recorded, job not queued; the poll will queue it'),
  );
  return { status: 202, body: cancellationView(invoice.uuid, recorded.invoiceStatus, recorded.cancellation) };
}
