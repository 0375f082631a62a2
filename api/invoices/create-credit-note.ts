import type { CreateCreditNoteRequest } from '../contract/credit-notes/credit-note-schema.js';
import { planCreditNote, type CreditedInvoice } from '../../shared/credit-notes/plan-credit-note.js';
import { AppError, type ErrorDetail } from '../../shared/platform/errors.js';
import { enqueueStamp } from '../../shared/invoices/enqueue-stamp.js';
import { dec } from '../../shared/domain/money.js';
import { recordCreditNote } from '../../shared/repositories/credit-notes.js';
import type { ApiDeps } from '../deps.js';
import type { InvoiceScope } from './cancel-invoice.js';
import { relatedInvoices } from './related-invoices.js';

/**
 * POST /v1/qrs/invoices/credit-notes: finds the credited invoices for these credentials, reads them as
 * stamped, and records the credit note with the credited amounts checked under lock; the stamp worker
 * seals and stamps it like any invoice (then PDF and e-mail to the buyer).
 */
export async function createCreditNote(deps: ApiDeps, scope: InvoiceScope, request: CreateCreditNoteRequest) {
  const details: ErrorDetail[] = [];
  if (!deps.catalogs.entry('c_FormaPago', request.sat_payment_form)) {
    details.push({ field: 'sat_payment_form', code: 'invalid_value', message: `${request.sat_payment_form} is not in c_FormaPago.` });
  }
  const invoices = (
    await relatedInvoices(
      deps,
      scope,
      request.related.map((r) => r.uuid),
      details,
    )
  ).map((found) => ({ ...found, amount: String(request.related[found.index]!.amount) }));
  if (details.length > 0) throw new AppError(422, 'credit_note_invalid', 'The credit note cannot be issued as asked.', { details });

  const first = invoices[0]!.row;
  const timeZone = first.transaction_id
    ? ((await deps.db('qr_transactions').where({ id: first.transaction_id }).first('time_zone')) as { time_zone: string }).time_zone
    : 'America/Mexico_City';
  const recorded = await recordCreditNote(deps.db, {
    merchantId: first.merchant_id,
    customer: first.customer,
    timeZone,
    invoices: invoices.map((i) => i.row),
    plan: (alreadyCredited) =>
      planCreditNote(
        invoices.map((i): CreditedInvoice => ({ uuid: i.row.uuid!, data: i.data, amount: dec(i.amount), alreadyCredited: alreadyCredited.get(i.row.uuid!) ?? dec(0) })),
        { form: request.sat_payment_form },
        (currency) => deps.catalogs.currencyDecimals(currency),
        request.description,
      ),
  });
  if (!recorded.ok) throw new AppError(422, 'credit_note_invalid', 'The credit note cannot be issued as asked.', { details: recorded.details });
  // Recorded first: if the enqueue fails, the stamping sweep finds the credit note STAMPING and queues it.
  await enqueueStamp(deps.producers, recorded.creditNote.id).catch((err: unknown) =>
    deps.logger.warn({ err, invoice_id: recorded.creditNote.id }, 'credit note recorded, stamp job not queued; the sweep will queue it'),
  );
  return { creditNote: recorded.creditNote, related: recorded.allocations.map((a) => ({ uuid: a.uuid, amount: a.amount.toFixed(6) })) };
}
