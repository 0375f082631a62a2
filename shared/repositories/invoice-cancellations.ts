import { VALID_INVOICE_STATUSES } from '../domain/invoice-lifecycle.js';
import { OPEN_CANCELLATION_STATUSES, POLLED_CANCELLATION_STATUSES, type AttentionCause, type CancellationStatus } from '../domain/cancellation-lifecycle.js';
import type { CancellationAcceptance, AcceptanceReason } from '../cancellation/cancellation-terms.js';
import type { Db, Trx } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { invoiceEventData } from '../webhooks/event-data.js';
import { emitEvents } from '../webhooks/emit-event.js';
import type { CancellationMotive } from '../adapters/pac/pac-client.js';
import type { InvoiceRow, InvoiceStatus } from './invoices.js';
import { liveRelatedCfdis } from './related-cfdis.js';

export type { CancellationStatus };

/**
 * Why a request ended FAILED. From the PAC (`source` absent or `pac`): SW's own code and message, and its
 * `messageDetail` (`detail`) with the code that starts it (`detail_code`): SW's message is one generic text for
 * every cause, the cause is in the detail. From an operator who gave the request up: `source` `operator`.
 */
export interface CancellationRefusal {
  code: string;
  message: string;
  detail?: string | null;
  detail_code?: string | null;
  source?: 'pac' | 'operator';
}

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
  refusal: CancellationRefusal | null;
  acuse_file_key: string | null;
  requested_at: Date;
  updated_at: Date;
  resolved_at: Date | null;
  /** When it entered its status: the poll's bounds count from here. */
  status_since: Date;
  /** Set while NEEDS_ATTENTION. */
  attention_cause: AttentionCause | null;
}

/** Where the invoice stands while its latest request is in each state (FAILED: as if never asked). */
const INVOICE_STATUS: Record<CancellationStatus, InvoiceStatus> = {
  REQUESTED: 'CANCELLING',
  PENDING: 'CANCELLATION_PENDING',
  // Sent and acknowledged; SAT's answer is not known yet, or someone must look: not valid to credit or pay.
  NOT_FOUND_AT_SAT: 'CANCELLATION_PENDING',
  NEEDS_ATTENTION: 'CANCELLATION_PENDING',
  CANCELLED: 'CANCELLED',
  REJECTED: 'CANCELLATION_REJECTED',
  FAILED: 'ACTIVE',
};

const OPEN: readonly CancellationStatus[] = OPEN_CANCELLATION_STATUSES;

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
  fields: { satCode?: string; satStatus?: string; acuseFileKey?: string; refusal?: CancellationRefusal; attentionCause?: AttentionCause; now?: Date } = {},
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
          status_since: fields.now ?? trx.fn.now(),
          attention_cause: to === 'NEEDS_ATTENTION' ? (fields.attentionCause ?? null) : null,
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
        data: invoiceEventData(invoice, { cancellation: cancellationEventData(moved) }),
      },
    ]);
    return moved;
  });
}

/** What an invoice.cancellation_* event tells of the request: where it stands and, when it needs the merchant or an operator, why. */
function cancellationEventData(c: CancellationRow): Record<string, unknown> {
  return {
    status: c.status,
    motive: c.motive,
    sat_status: c.sat_status,
    refusal: c.refusal,
    attention: c.attention_cause ? { cause: c.attention_cause, since: new Date(c.status_since).toISOString() } : null,
  };
}

/** Marks an open request as looked at, so the poll goes round all of them before asking again. */
export async function touchCancellation(db: Db, id: string): Promise<void> {
  await db('invoice_cancellations').where({ id }).whereIn('status', OPEN).update({ updated_at: db.fn.now() });
}

/** Requests SAT is asked about (PENDING, NOT_FOUND_AT_SAT), and requests still unsent since before `requestedBefore`; least recently looked at first. */
export async function openCancellations(db: Db, requestedBefore: Date, limit: number): Promise<CancellationRow[]> {
  return (await db('invoice_cancellations')
    .where((q) => {
      q.whereIn('status', POLLED_CANCELLATION_STATUSES).orWhere((r) => {
        r.where({ status: 'REQUESTED' }).where('updated_at', '<', requestedBefore);
      });
    })
    .orderBy('updated_at')
    .limit(limit)) as CancellationRow[];
}

/** A cancellation that needs someone (NEEDS_ATTENTION): which, whose, why and since when. */
export interface CancellationNeedingAttention {
  id: string;
  invoiceId: string;
  merchantId: string;
  cause: AttentionCause;
  since: Date;
}

export async function countCancellationsNeedingAttention(db: Db): Promise<number> {
  const [row] = (await db('invoice_cancellations').where({ status: 'NEEDS_ATTENTION' }).count({ n: '*' })) as { n: string | number }[];
  return Number(row?.n ?? 0);
}

/** The oldest first: the longest waiting is the first to look at. */
export async function listCancellationsNeedingAttention(db: Db, limit: number): Promise<CancellationNeedingAttention[]> {
  const rows = (await db('invoice_cancellations as c')
    .join('invoices as i', 'i.id', 'c.invoice_id')
    .where('c.status', 'NEEDS_ATTENTION')
    .orderBy([{ column: 'c.status_since' }, { column: 'c.id' }])
    .limit(limit)
    .select('c.id', 'c.invoice_id', 'i.merchant_id', 'c.attention_cause', 'c.status_since')) as {
    id: string;
    invoice_id: string;
    merchant_id: string;
    attention_cause: AttentionCause;
    status_since: Date;
  }[];
  return rows.map((r) => ({ id: r.id, invoiceId: r.invoice_id, merchantId: r.merchant_id, cause: r.attention_cause, since: r.status_since }));
}
