import { VALID_INVOICE_STATUSES } from '../domain/invoice-lifecycle.js';
import type { CancellationAcceptance, AcceptanceReason } from '../cancellation/cancellation-terms.js';
import type { Db, Trx } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { invoiceEventData } from '../webhooks/event-data.js';
import { emitEvents } from '../webhooks/emit-event.js';
import type { CancellationMotive } from '../adapters/pac/pac-client.js';
import type { InvoiceRow, InvoiceStatus } from './invoices.js';
import { liveRelatedCfdis } from './related-cfdis.js';

export type CancellationStatus = 'REQUESTED' | 'PENDING' | 'CANCELLED' | 'REJECTED' | 'FAILED';

export interface CancellationRow {
  id: string;
  invoice_id: string;
  motive: CancellationMotive;
  substitution_uuid: string | null;
  status: CancellationStatus;
  acceptance: CancellationAcceptance;
  acceptance_reason: AcceptanceReason;
  sat_code: string | null;
  sat_status: string | null;
  refusal: { code: string; message: string } | null;
  acuse_file_key: string | null;
  requested_at: Date;
  updated_at: Date;
  resolved_at: Date | null;
}

/** Where the invoice stands while its latest request is in each state (FAILED: as if never asked). */
const INVOICE_STATUS: Record<CancellationStatus, InvoiceStatus> = {
  REQUESTED: 'CANCELLING',
  PENDING: 'CANCELLATION_PENDING',
  CANCELLED: 'CANCELLED',
  REJECTED: 'CANCELLATION_REJECTED',
  FAILED: 'ACTIVE',
};

const OPEN: CancellationStatus[] = ['REQUESTED', 'PENDING'];

export type CancellationRequest =
  | { ok: true; cancellation: CancellationRow; created: boolean; invoiceStatus: InvoiceStatus }
  | { ok: false; reason: 'not_stamped' }
  | { ok: false; reason: 'related_active'; related: string[] };

/** The request a cancelled or cancelling invoice is under, else the latest one (rejected or failed), if any. */
export async function latestCancellation(db: Db | Trx, invoiceId: string): Promise<CancellationRow | undefined> {
  return (await db('invoice_cancellations').where({ invoice_id: invoiceId }).orderBy('requested_at', 'desc').first()) as CancellationRow | undefined;
}

/**
 * Records a cancellation request and moves the invoice to CANCELLING, in one transaction with the invoice
 * row locked. An invoice already cancelling or cancelled answers with the request it is under (a repeated
 * DELETE changes nothing); an ACTIVE or CANCELLATION_REJECTED one gets a new request, unless credit notes or
 * payment complements still relate to it.
 */
export async function requestCancellation(
  db: Db,
  invoice: InvoiceRow,
  request: { motive: CancellationMotive; substitutionUuid?: string; acceptance: CancellationAcceptance; acceptanceReason: AcceptanceReason },
): Promise<CancellationRequest> {
  return db.transaction(async (trx) => {
    const locked = (await trx('invoices').where({ id: invoice.id }).forUpdate().first('status')) as { status: InvoiceStatus } | undefined;
    const status = locked?.status;
    if (status === 'CANCELLING' || status === 'CANCELLATION_PENDING' || status === 'CANCELLED') {
      return { ok: true, cancellation: (await latestCancellation(trx, invoice.id))!, created: false, invoiceStatus: status };
    }
    if (status === undefined || !(VALID_INVOICE_STATUSES as readonly InvoiceStatus[]).includes(status)) return { ok: false, reason: 'not_stamped' };
    // Under the invoice's lock, which credit notes and payments take too: none can slip in after this look.
    const related = await liveRelatedCfdis(trx, invoice.id);
    if (related.length > 0) return { ok: false, reason: 'related_active', related };
    const [cancellation] = (await trx('invoice_cancellations')
      .insert({
        id: newId('cancellation'),
        invoice_id: invoice.id,
        motive: request.motive,
        substitution_uuid: request.substitutionUuid ?? null,
        status: 'REQUESTED',
        acceptance: request.acceptance,
        acceptance_reason: request.acceptanceReason,
      })
      .returning('*')) as CancellationRow[];
    await trx('invoices').where({ id: invoice.id }).update({ status: INVOICE_STATUS.REQUESTED, updated_at: trx.fn.now() });
    return { ok: true, cancellation: cancellation!, created: true, invoiceStatus: INVOICE_STATUS.REQUESTED };
  });
}

export async function findCancellation(db: Db, id: string): Promise<CancellationRow | undefined> {
  return (await db('invoice_cancellations').where({ id }).first()) as CancellationRow | undefined;
}

/**
 * Moves a request from one of `from` to `to`, with the invoice (and, once cancelled, its QR) in the same
 * transaction. Undefined when the request had already moved on: a job that runs twice changes nothing.
 */
export async function moveCancellation(
  db: Db,
  id: string,
  from: CancellationStatus[],
  to: CancellationStatus,
  fields: { satCode?: string; satStatus?: string; acuseFileKey?: string; refusal?: { code: string; message: string } } = {},
): Promise<CancellationRow | undefined> {
  return db.transaction(async (trx) => {
    const [moved] = (await trx('invoice_cancellations')
      .where({ id })
      .whereIn('status', from)
      .update(
        {
          status: to,
          updated_at: trx.fn.now(),
          resolved_at: OPEN.includes(to) ? null : trx.fn.now(),
          ...(fields.satCode !== undefined ? { sat_code: fields.satCode } : {}),
          ...(fields.satStatus !== undefined ? { sat_status: fields.satStatus } : {}),
          ...(fields.acuseFileKey !== undefined ? { acuse_file_key: fields.acuseFileKey } : {}),
          ...(fields.refusal !== undefined ? { refusal: JSON.stringify(fields.refusal) } : {}),
        },
        '*',
      )) as CancellationRow[];
    if (!moved) return undefined;
    const [invoice] = (await trx('invoices').where({ id: moved.invoice_id }).update({ status: INVOICE_STATUS[to], updated_at: trx.fn.now() }, '*')) as InvoiceRow[];
    if (!invoice) return moved;
    if (to === 'CANCELLED' && invoice.transaction_id) {
      await trx('qr_transactions')
        .whereIn('id', trx('invoice_tickets').where({ invoice_id: invoice.id }).select('transaction_id'))
        .update({ status: 'CANCELLED', updated_at: trx.fn.now() });
    }
    await emitEvents(trx, to === 'CANCELLED' ? 'invoice.cancelled' : 'invoice.cancellation_status_updated', [
      {
        merchantId: invoice.merchant_id,
        data: invoiceEventData(invoice, { cancellation: { status: moved.status, motive: moved.motive, sat_status: moved.sat_status, refusal: moved.refusal } }),
      },
    ]);
    return moved;
  });
}

/** Marks an open request as looked at, so the poll goes round all of them before asking again. */
export async function touchCancellation(db: Db, id: string): Promise<void> {
  await db('invoice_cancellations').where({ id }).whereIn('status', OPEN).update({ updated_at: db.fn.now() });
}

/** Requests waiting for the receptor, and requests still unsent since before `requestedBefore`; least recently looked at first. */
export async function openCancellations(db: Db, requestedBefore: Date, limit: number): Promise<CancellationRow[]> {
  return (await db('invoice_cancellations')
    .where((q) => {
      q.where({ status: 'PENDING' }).orWhere((r) => {
        r.where({ status: 'REQUESTED' }).where('updated_at', '<', requestedBefore);
      });
    })
    .orderBy('updated_at')
    .limit(limit)) as CancellationRow[];
}
