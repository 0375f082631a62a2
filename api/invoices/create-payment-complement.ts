import { AppError, type ErrorDetail } from '../../shared/platform/errors.js';
import { findRecord, type IdempotencyScope } from '../../shared/platform/idempotency/idempotency-store.js';
import { requestFingerprint } from '../../shared/platform/idempotency/request-fingerprint.js';
import { newId } from '../../shared/platform/ids.js';
import { enqueueStamp } from '../../shared/invoices/enqueue-stamp.js';
import { dec } from '../../shared/domain/money.js';
import { checkPayment, isCalendarDate, type PaidInvoiceFacts } from '../../shared/payment-complements/check-payment.js';
import type { CreatePaymentComplementRequest } from '../contract/payment-complements/payment-complement-schema.js';
import { planPaymentComplement } from '../../shared/payment-complements/plan-payment-complement.js';
import type { InvoiceRow } from '../../shared/repositories/invoices.js';
import { recordPaymentComplement } from '../../shared/repositories/payment-complements.js';
import { localDateTime } from '../../shared/domain/time-zone.js';
import type { ApiDeps } from '../deps.js';
import type { InvoiceScope } from './cancel-invoice.js';
import { relatedInvoices } from './related-invoices.js';

const IDEMPOTENCY_SCOPE = 'payment_complement';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface PaymentComplementAnswer {
  id: string;
  /** The same request again under its idempotency key: the complement it recorded. */
  replayed: boolean;
}

function invalid(details: ErrorDetail[]): AppError {
  return new AppError(422, 'payment_complement_invalid', 'The payment complement cannot be issued as asked.', { details });
}

/** The complement an idempotency key recorded, for the same body; another body is 409. */
async function replay(deps: ApiDeps, scope: IdempotencyScope, fingerprint: string): Promise<PaymentComplementAnswer | undefined> {
  const record = await findRecord(deps.db, scope);
  if (!record) return undefined;
  if (record.fingerprint !== fingerprint) {
    throw new AppError(409, 'idempotency_key_reused', 'This Idempotency-Key was already used with a different payment; use a new key for a new payment.');
  }
  return { id: record.resourceId, replayed: true };
}

/**
 * POST /v1/qrs/invoices/payment-complements: finds the paid invoices for these credentials and reads them
 * as stamped, checks the payment, then records the complement with each invoice's balance and installment
 * decided under lock; the stamp worker seals and stamps it like any CFDI (then PDF and e-mail to the buyer).
 */
export async function createPaymentComplement(
  deps: ApiDeps,
  scope: InvoiceScope,
  request: CreatePaymentComplementRequest,
  idempotencyKey: string | undefined,
  now = new Date(),
): Promise<PaymentComplementAnswer> {
  const malformed: ErrorDetail[] = [];
  if (idempotencyKey !== undefined && !UUID.test(idempotencyKey)) malformed.push({ field: 'Idempotency-Key', code: 'invalid_format', message: 'Idempotency-Key must be a UUID.' });
  if (!isCalendarDate(request.payment.date)) malformed.push({ field: 'payment.date', code: 'invalid_format', message: `${request.payment.date} is not a date of the calendar.` });
  if (malformed.length > 0) throw new AppError(400, 'validation_failed', 'The request has invalid or missing fields.', { details: malformed });

  const details: ErrorDetail[] = [];
  const invoices: (PaidInvoiceFacts & { row: InvoiceRow; index: number })[] = (
    await relatedInvoices(
      deps,
      scope,
      request.related.map((r) => r.uuid),
      details,
    )
  ).map((found) => {
    const related = request.related[found.index]!;
    return { ...found, amountPaid: dec(related.amount_paid), equivalence: related.equivalence === undefined ? undefined : dec(related.equivalence) };
  });
  if (details.length > 0) throw invalid(details);

  const first = invoices[0]!.row;
  const fingerprint = requestFingerprint(request, {});
  // Keys belong to the merchant whose invoices are paid, whichever credentials (its key, its account's token) ask.
  const idempotency =
    idempotencyKey === undefined
      ? undefined
      : {
          scope: { merchantId: first.merchant_id, scope: IDEMPOTENCY_SCOPE, key: idempotencyKey.toLowerCase() },
          fingerprint,
        };
  // Answered before any rule: the payment a key recorded stays its answer, whatever the balances say now.
  const earlier = idempotency && (await replay(deps, idempotency.scope, fingerprint));
  if (earlier) return earlier;

  const timeZone = first.transaction_id
    ? ((await deps.db('qr_transactions').where({ id: first.transaction_id }).first('time_zone')) as { time_zone: string }).time_zone
    : 'America/Mexico_City';
  const problems = checkPayment(request.payment, invoices, { catalogs: deps.catalogs, nowLocal: localDateTime(now, timeZone) });
  if (problems.length > 0) throw invalid(problems);

  const currencyDecimals = (currency: string) => deps.catalogs.currencyDecimals(currency) ?? 2;
  const recorded = await recordPaymentComplement(deps.db, {
    id: newId('invoice'),
    merchantId: first.merchant_id,
    customer: first.customer,
    timeZone,
    invoices: invoices.map((i) => i.row),
    idempotency,
    plan: (standing) =>
      planPaymentComplement(
        request.payment,
        invoices.map((invoice) => {
          const asked = request.related[invoice.index]!;
          return {
            ...invoice,
            standing: standing.get(invoice.row.id)!,
            assertedInstallment: asked.installment,
            assertedPreviousBalance: asked.previous_balance === undefined ? undefined : dec(asked.previous_balance),
          };
        }),
        currencyDecimals,
      ),
  });
  if (!recorded.ok) {
    if (recorded.reason === 'key_taken') {
      const winner = await replay(deps, idempotency!.scope, fingerprint);
      if (!winner) throw new Error('idempotency record vanished after a conflict');
      return winner;
    }
    if (recorded.reason === 'balance_changed') {
      throw new AppError(
        409,
        'balance_changed',
        "An invoice's balance or installment is not what the request states: another payment was recorded meanwhile (or this one already was).",
        { details: recorded.details },
      );
    }
    throw invalid(recorded.details);
  }
  // Recorded first: if the enqueue fails, the stamping sweep finds the complement STAMPING and queues it.
  await enqueueStamp(deps.producers, recorded.complement.id).catch((err: unknown) =>
    deps.logger.warn({ err, invoice_id: recorded.complement.id }, 'payment complement recorded, stamp job not queued; the sweep will queue it'),
  );
  return { id: recorded.complement.id, replayed: false };
}
