import { DEAD_INVOICE_STATUSES, VALID_INVOICE_STATUSES } from '../domain/invoice-lifecycle.js';
import type { Db, Trx } from '../platform/db.js';
import type { ErrorDetail } from '../platform/errors.js';
import { CLAIM_KEY_SQL, type IdempotencyScope } from '../platform/idempotency/idempotency-store.js';
import type { Customer } from '../invoices/customer.js';
import { storedDocumentJson } from '../invoices/stored-document.js';
import { dec } from '../domain/money.js';
import { nextInstallment, type InvoiceStanding, type PaymentAllocation, type PaymentComplementPlan } from '../payment-complements/plan-payment-complement.js';
import { insertNumbered, type InvoiceRow, type InvoiceStatus } from './invoices.js';

/** Invoices a payment can still be received for. */
const PAYABLE: readonly InvoiceStatus[] = VALID_INVOICE_STATUSES;
/** Credit notes and complements that no longer count (the same list keeps payment_allocations.live, see its migration). */
const NOT_LIVE: readonly InvoiceStatus[] = DEAD_INVOICE_STATUSES;

export type RecordedPaymentComplement =
  | { ok: true; complement: InvoiceRow; allocations: PaymentAllocation[] }
  | { ok: false; reason: 'balance_changed' | 'refused'; details: ErrorDetail[] }
  | { ok: false; reason: 'key_taken' };

export interface AllocationView {
  uuid: string;
  installment: number;
  previous_balance: string;
  amount_paid: string;
  remaining_balance: string;
}

/** Each invoice's balance and next installment, read inside the caller's transaction (the invoices locked). */
async function standings(trx: Trx, invoices: readonly Pick<InvoiceRow, 'id' | 'total'>[]): Promise<Map<string, InvoiceStanding>> {
  const ids = invoices.map((i) => i.id);
  const credited = (await trx('credit_allocations as a')
    .join('invoices as cn', 'cn.id', 'a.credit_note_id')
    .whereIn('a.invoice_id', ids)
    .whereNotIn('cn.status', NOT_LIVE)
    .groupBy('a.invoice_id')
    .select('a.invoice_id', trx.raw('sum(a.amount) as amount'))) as { invoice_id: string; amount: string }[];
  const paid = (await trx('payment_allocations').whereIn('invoice_id', ids).where({ live: true }).select('invoice_id', 'installment', 'amount_paid')) as {
    invoice_id: string;
    installment: number;
    amount_paid: string;
  }[];
  return new Map(
    invoices.map((invoice) => {
      const own = paid.filter((p) => p.invoice_id === invoice.id);
      const balance = own.reduce((left, p) => left.minus(p.amount_paid), dec(invoice.total ?? '0').minus(credited.find((c) => c.invoice_id === invoice.id)?.amount ?? '0'));
      return [invoice.id, { balance, installment: nextInstallment(own.map((p) => p.installment)) }];
    }),
  );
}

/** A refusal found inside the transaction: thrown so that it rolls back (the key claim with it), then answered. */
class NotRecorded extends Error {
  constructor(readonly outcome: Extract<RecordedPaymentComplement, { reason: 'balance_changed' | 'refused' }>) {
    super(outcome.reason);
  }
}

/**
 * Records a payment complement for stamping. In one transaction: the idempotency key is claimed first
 * (a second request with the key waits here for the first, then finds it taken), the paid invoices are
 * locked in id order (two payments of one invoice wait for each other instead of deadlocking), their
 * balances and installments are read under that lock, and `plan` decides with them: payments recorded
 * at the same time can never take an invoice below zero or share an installment.
 */
export async function recordPaymentComplement(
  db: Db,
  input: {
    id: string;
    merchantId: string;
    customer: Customer;
    timeZone: string;
    invoices: InvoiceRow[];
    idempotency?: { scope: IdempotencyScope; fingerprint: string };
    plan: (standing: Map<string, InvoiceStanding>) => PaymentComplementPlan;
  },
): Promise<RecordedPaymentComplement> {
  try {
    return await db.transaction(async (trx) => {
      if (input.idempotency) {
        const { scope, fingerprint } = input.idempotency;
        const claimed = await trx.raw<{ rows: { resource_id: string }[] }>(CLAIM_KEY_SQL.replace(/\$\d/g, '?'), [scope.merchantId, scope.scope, scope.key, fingerprint, input.id]);
        if (claimed.rows.length === 0) return { ok: false, reason: 'key_taken' } as const;
      }
      const ids = input.invoices.map((i) => i.id);
      const locked = (await trx('invoices').whereIn('id', ids).orderBy('id').forUpdate().select('id', 'status', 'total')) as Pick<InvoiceRow, 'id' | 'status' | 'total'>[];
      const details: ErrorDetail[] = [];
      input.invoices.forEach((invoice, i) => {
        const now = locked.find((l) => l.id === invoice.id);
        if (!now || !PAYABLE.includes(now.status)) {
          details.push({
            field: `related[${i}].uuid`,
            code: 'not_active',
            message: `Invoice ${invoice.uuid} is ${now?.status ?? 'gone'}; payments are received only for a valid invoice.`,
          });
        }
      });
      if (details.length > 0) throw new NotRecorded({ ok: false, reason: 'refused', details });
      const plan = input.plan(await standings(trx, locked));
      if (!plan.ok) throw new NotRecorded(plan);
      const complement = await insertNumbered(trx, {
        id: input.id,
        transaction_id: null,
        merchant_id: input.merchantId,
        cfdi_type: 'P',
        customer: JSON.stringify(input.customer),
        document: storedDocumentJson({ timeZone: input.timeZone, input: plan.document }),
      });
      await trx('payment_allocations').insert(
        plan.allocations.map((a) => ({
          payment_complement_id: complement.id,
          invoice_id: input.invoices.find((i) => i.uuid === a.uuid)!.id,
          installment: a.installment,
          previous_balance: a.previousBalance.toFixed(6),
          amount_paid: a.amountPaid.toFixed(6),
          remaining_balance: a.remainingBalance.toFixed(6),
        })),
      );
      return { ok: true, complement, allocations: plan.allocations } as const;
    });
  } catch (err) {
    if (err instanceof NotRecorded) return err.outcome;
    throw err;
  }
}

/** A payment complement of this merchant or account, with what it paid of each invoice. */
export async function findPaymentComplement(
  db: Db,
  id: string,
  scope: { merchantId: string } | { accountId: string },
): Promise<{ complement: InvoiceRow; related: AllocationView[] } | undefined> {
  const query = db('invoices as i').join('merchants as m', 'm.id', 'i.merchant_id').where({ 'i.id': id, 'i.cfdi_type': 'P' });
  if ('merchantId' in scope) query.where('i.merchant_id', scope.merchantId);
  else query.where('m.account_id', scope.accountId);
  const complement = (await query.first('i.*')) as InvoiceRow | undefined;
  if (!complement) return undefined;
  const related = (await db('payment_allocations as a')
    .join('invoices as i', 'i.id', 'a.invoice_id')
    .where('a.payment_complement_id', id)
    .orderBy('i.uuid')
    .select('i.uuid', 'a.installment', 'a.previous_balance', 'a.amount_paid', 'a.remaining_balance')) as AllocationView[];
  return { complement, related };
}
