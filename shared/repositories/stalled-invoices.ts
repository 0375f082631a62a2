/**
 * Invoices STAMPING past STAMP_GIVE_UP_MS (issue #38): marked stalled (migrations/20261128090000_needs_attention.ts),
 * no longer re-queued by the sweep, announced to the merchant (`invoice.stalled`), until an operator retries or
 * gives them up. A stalled invoice is still STAMPING: it has no CFDI, and a stamp job that still runs may give it
 * one (it then leaves the list by itself: the list reads STAMPING rows only).
 */
import type { Db } from '../platform/db.js';
import { emitEvents } from '../webhooks/emit-event.js';
import { invoiceEventData } from '../webhooks/event-data.js';
import { recordRefusal, type InvoiceRow } from './invoices.js';

export interface StalledInvoice {
  id: string;
  merchantId: string;
  cause: string;
  since: Date;
}

/** What the merchant's and the buyer's refusal say when an operator gives a stalled invoice up. */
export const STAMP_GIVEN_UP = {
  code: 'stamp_given_up',
  message: 'The PAC did not stamp this invoice in time and it was given up: no CFDI was issued. The sale can be invoiced again.',
} as const;

const stalled = (db: Db) => db('invoices').where({ status: 'STAMPING' }).whereNotNull('stalled_at');

/**
 * The STAMPING invoices the sweep would re-queue (no change for `stampSweepMs`), split by the bound: those
 * STAMPING since before `giveUpBefore` (from their confirmation or an operator's retry) are marked stalled
 * here, each with its `invoice.stalled` event in its transaction; the others are returned to be queued again.
 */
export async function stallOrRequeue(db: Db, staleBefore: Date, giveUpBefore: Date, cause: string, limit: number): Promise<{ requeue: string[]; stalled: number }> {
  const rows = (await db('invoices')
    .where({ status: 'STAMPING' })
    .whereNull('stalled_at')
    // A stamp the PAC withholds is named on its own (its CFDI exists at SAT): neither re-sent nor stalled here.
    .whereNull('stamp_withheld_at')
    .where('updated_at', '<', staleBefore)
    .orderBy('updated_at')
    .limit(limit)
    .select('id', db.raw('coalesce(stamp_retried_at, created_at) < ? AS overdue', [giveUpBefore]))) as { id: string; overdue: boolean }[];
  let count = 0;
  for (const row of rows.filter((r) => r.overdue)) if (await markStalled(db, row.id, cause)) count++;
  return { requeue: rows.filter((r) => !r.overdue).map((r) => r.id), stalled: count };
}

async function markStalled(db: Db, invoiceId: string, cause: string): Promise<boolean> {
  return db.transaction(async (trx) => {
    const [row] = (await trx('invoices')
      .where({ id: invoiceId, status: 'STAMPING' })
      .whereNull('stalled_at')
      .update({ stalled_at: trx.fn.now(), stall_cause: cause }, '*')) as (InvoiceRow & { stalled_at: Date })[];
    if (!row) return false;
    const sale = row.transaction_id
      ? ((await trx('qr_transactions').where({ id: row.transaction_id }).first('sale_id', 'store_uid')) as { sale_id: string; store_uid: string } | undefined)
      : undefined;
    await emitEvents(trx, 'invoice.stalled', [
      { merchantId: row.merchant_id, data: invoiceEventData(row, { ...(sale ?? {}), stalled: { cause, since: row.stalled_at.toISOString() } }) },
    ]);
    return true;
  });
}

export async function countStalledInvoices(db: Db): Promise<number> {
  const row = (await stalled(db).count({ n: '*' }).first()) as { n: string | number } | undefined;
  return Number(row?.n ?? 0);
}

export async function listStalledInvoices(db: Db, limit: number): Promise<StalledInvoice[]> {
  const rows = (await stalled(db).orderBy('stalled_at').limit(limit).select('id', 'merchant_id', 'stall_cause', 'stalled_at')) as {
    id: string;
    merchant_id: string;
    stall_cause: string | null;
    stalled_at: Date;
  }[];
  return rows.map((r) => ({ id: r.id, merchantId: r.merchant_id, cause: r.stall_cause ?? '', since: r.stalled_at }));
}

/** Back to the sweep's care, the bound counted from now. False when the invoice is not stalled. The caller queues its stamp job. */
export async function unstallInvoice(db: Db, invoiceId: string): Promise<boolean> {
  const changed = await stalled(db).where({ id: invoiceId }).update({ stalled_at: null, stall_cause: null, stamp_retried_at: db.fn.now(), updated_at: db.fn.now() });
  return changed === 1;
}

/**
 * Gives a stalled invoice up: REFUSED with STAMP_GIVEN_UP, the path a PAC refusal takes (recordRefusal): its
 * tickets are released (the buyer may confirm the sale again, or it goes into the period's global invoice),
 * the merchant gets `invoice.failed`, the buyer's page says it. False when the invoice is not stalled (or a
 * stamp came first).
 */
export async function giveUpStalledInvoice(db: Db, invoiceId: string): Promise<boolean> {
  const found = (await stalled(db).where({ id: invoiceId }).first('id')) as { id: string } | undefined;
  if (!found) return false;
  await recordRefusal(db, invoiceId, { ...STAMP_GIVEN_UP, details: [] });
  const after = (await db('invoices').where({ id: invoiceId }).first('status', 'refusal')) as { status: string; refusal: { code?: string } | null } | undefined;
  return after?.status === 'REFUSED' && after.refusal?.code === STAMP_GIVEN_UP.code;
}
