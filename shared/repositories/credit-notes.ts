import { DEAD_INVOICE_STATUSES, VALID_INVOICE_STATUSES } from '../domain/invoice-lifecycle.js';
import type { Decimal } from 'decimal.js';
import type { CreditNotePlan } from '../credit-notes/plan-credit-note.js';
import type { Db } from '../platform/db.js';
import type { ErrorDetail } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Customer } from '../invoices/customer.js';
import { storedDocumentJson } from '../invoices/stored-document.js';
import { dec } from '../domain/money.js';
import { insertNumbered, type InvoiceRow, type InvoiceStatus } from './invoices.js';

/** Invoices that can still be credited. */
const CREDITABLE: readonly InvoiceStatus[] = VALID_INVOICE_STATUSES;

export type RecordedCreditNote = { ok: true; creditNote: InvoiceRow; allocations: { uuid: string; amount: Decimal }[] } | { ok: false; details: ErrorDetail[] };

/**
 * Records a credit note for stamping. The credited invoices are locked (in id order, so two credit notes
 * for the same invoices wait for each other instead of deadlocking), what live credit notes already
 * credit is summed under that lock, and `plan` decides with those sums: two credit notes at once can
 * never credit more than an invoice's total.
 */
export async function recordCreditNote(
  db: Db,
  input: {
    merchantId: string;
    customer: Customer;
    timeZone: string;
    invoices: InvoiceRow[];
    plan: (alreadyCredited: Map<string, Decimal>) => CreditNotePlan;
  },
): Promise<RecordedCreditNote> {
  return db.transaction(async (trx) => {
    const ids = input.invoices.map((i) => i.id);
    const locked = (await trx('invoices').whereIn('id', ids).orderBy('id').forUpdate().select('id', 'uuid', 'status')) as Pick<InvoiceRow, 'id' | 'uuid' | 'status'>[];
    const details: ErrorDetail[] = [];
    input.invoices.forEach((invoice, i) => {
      const now = locked.find((l) => l.id === invoice.id);
      if (!now || !CREDITABLE.includes(now.status)) {
        details.push({ field: `related[${i}].uuid`, code: 'not_active', message: `Invoice ${invoice.uuid} is ${now?.status ?? 'gone'}; only a valid invoice is credited.` });
      }
    });
    if (details.length > 0) return { ok: false, details };
    const sums = (await trx('credit_allocations as a')
      .join('invoices as cn', 'cn.id', 'a.credit_note_id')
      .whereIn('a.invoice_id', ids)
      .whereNotIn('cn.status', DEAD_INVOICE_STATUSES)
      .groupBy('a.invoice_id')
      .select('a.invoice_id', trx.raw('sum(a.amount) as credited'))) as { invoice_id: string; credited: string }[];
    const byUuid = new Map(input.invoices.map((i) => [i.uuid ?? '', dec(sums.find((s) => s.invoice_id === i.id)?.credited ?? '0')]));
    const plan = input.plan(byUuid);
    if (!plan.ok) return { ok: false, details: plan.details };
    const creditNote = await insertNumbered(trx, {
      id: newId('invoice'),
      transaction_id: null,
      merchant_id: input.merchantId,
      cfdi_type: 'E',
      customer: JSON.stringify(input.customer),
      document: storedDocumentJson({ timeZone: input.timeZone, input: plan.document }),
    });
    await trx('credit_allocations').insert(
      plan.allocations.map((a) => ({
        credit_note_id: creditNote.id,
        invoice_id: input.invoices.find((i) => i.uuid === a.uuid)!.id,
        amount: a.amount.toFixed(6),
      })),
    );
    return { ok: true, creditNote, allocations: plan.allocations };
  });
}

/** A credit note of this merchant or account, with what it credits. */
export async function findCreditNote(
  db: Db,
  id: string,
  scope: { merchantId: string } | { accountId: string },
): Promise<{ creditNote: InvoiceRow; related: { uuid: string; amount: string }[] } | undefined> {
  const query = db('invoices as i').join('merchants as m', 'm.id', 'i.merchant_id').where({ 'i.id': id, 'i.cfdi_type': 'E' });
  if ('merchantId' in scope) query.where('i.merchant_id', scope.merchantId);
  else query.where('m.account_id', scope.accountId);
  const creditNote = (await query.first('i.*')) as InvoiceRow | undefined;
  if (!creditNote) return undefined;
  const related = (await db('credit_allocations as a')
    .join('invoices as i', 'i.id', 'a.invoice_id')
    .where('a.credit_note_id', id)
    .orderBy('i.uuid')
    .select('i.uuid', 'a.amount')) as { uuid: string; amount: string }[];
  return { creditNote, related };
}
