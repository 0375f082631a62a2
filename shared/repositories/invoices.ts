import { qrTransitions } from '../platform/metrics/registry.js';
import { runPrepared, type Db, type PreparedStatement, type Trx } from '../platform/db.js';
import { invoiceEventData, qrEventData } from '../webhooks/event-data.js';
import { emitEvents, endpointWants, outboxEvents } from '../webhooks/emit-event.js';
import { newId } from '../platform/ids.js';
import { idsMonths, instantsOfIds } from './qr-transactions.js';
import { monthPartitionOf, partitionOf, perPartition, runInPartition } from './sale-partition.js';
import type { WebhookEventType } from '../webhooks/event-types.js';
import type { Customer } from '../invoices/customer.js';
import type { ErrorDetail } from '../platform/errors.js';

import { isStampedStatus, type InvoiceStatus } from '../domain/invoice-lifecycle.js';
import { isExpired } from '../domain/qr-lifecycle.js';
import type { QrStatus } from '../domain/qr-lifecycle.js';

export type { InvoiceStatus };

/** Stamped: it has a fiscal UUID, whether still valid or cancelled since. */
export function isStamped(invoice: InvoiceRow | undefined): invoice is InvoiceRow {
  return invoice !== undefined && isStampedStatus(invoice.status);
}

export interface InvoiceRefusal {
  code: string;
  message: string;
  details: ErrorDetail[];
}

export interface InvoiceRow {
  id: string;
  /** The QR sale it invoices; null for a credit note. */
  transaction_id: string | null;
  /** I (from a QR sale) or E (credit note). */
  cfdi_type: 'I' | 'E' | 'P';
  /** What a CFDI without a QR sale is built from (shared/invoices/stored-document.ts). */
  document: unknown;
  merchant_id: string;
  status: InvoiceStatus;
  series: string | null;
  folio: string;
  customer: Customer;
  issued_local: string | null;
  sealed_xml: string | null;
  uuid: string | null;
  stamped_at: Date | null;
  subtotal: string | null;
  discount: string | null;
  total: string | null;
  xml_file_key: string | null;
  pdf_file_key: string | null;
  refusal: InvoiceRefusal | null;
  email_sent_at: Date | null;
  /** The mail server refused the buyer's address for good: the e-mail is not sent again by itself. */
  email_refused_at: Date | null;
  /** The PAC said it stamped this invoice but withheld the stamp through a stamp job's every attempt: waits for an operator. */
  stamp_withheld_at: Date | null;
  /** How many of its `customid`s at the PAC ended with another invoice's stamp: its next stamp goes under the one after (saveTwinReseal). */
  stamp_twins: number;
  created_at: Date;
  updated_at: Date;
}

/** Why one of the further tickets of a confirmation cannot be claimed; `index` is its place in the list (0 is the first ticket). */
export interface TicketProblem {
  index: number;
  reason: 'not_found' | 'expired' | 'cancelled' | 'invoiced' | 'already_confirmed' | 'globally_invoiced';
}

export type ConfirmOutcome =
  | { ok: true; invoice: InvoiceRow }
  | { ok: false; reason: 'not_found' | 'expired' | 'cancelled' | 'invoiced' | 'already_confirmed'; invoice?: InvoiceRow }
  | { ok: false; reason: 'tickets_unavailable'; problems: TicketProblem[] };

const UNIQUE_VIOLATION = '23505';

type LockedQr = {
  id: string;
  merchant_id: string;
  status: QrStatus;
  expires_at: Date;
  confirmed_at: Date | null;
  sale_id: string;
  store_uid: string;
  global_invoice_id: string | null;
};

/** What stops a further ticket from joining a confirmation, read under its row lock. */
function ticketProblem(qr: LockedQr | undefined, now: Date): TicketProblem['reason'] | undefined {
  if (!qr) return 'not_found';
  if (qr.status === 'INVOICED') return 'invoiced';
  if (qr.status === 'CANCELLED') return 'cancelled';
  if (qr.confirmed_at) return 'already_confirmed';
  if (qr.global_invoice_id) return 'globally_invoiced';
  if (isExpired(qr, now)) return 'expired';
  return undefined;
}

// The confirmation of open QRs in one statement (issue #40: it was 8, BEGIN and COMMIT included), all or
// nothing: the QRs locked in id order; claimable only if every one is still open, unconfirmed, not in a global
// invoice and not expired; the folio of the first QR's refused attempt or the merchant's next one; the invoice,
// its tickets, the QRs SCANNED and confirmed, the qr.scanned events of those that were PENDING. No row when not
// claimable: recordConfirmation's transaction then says why.
const confirmOpenQrs = (sales: { table: string; months: (column: string) => string; ids: string }) => `WITH locked AS (
           SELECT id, merchant_id, status, expires_at, confirmed_at, sale_id, store_uid, global_invoice_id
           FROM ${sales.table} WHERE id ${sales.ids}${sales.months('created_at')} ORDER BY id FOR UPDATE),
         claimable AS (
           SELECT 1 FROM locked
           HAVING count(*) = cardinality($2::text[])
              AND bool_and(status IN ('PENDING', 'SCANNED') AND confirmed_at IS NULL AND global_invoice_id IS NULL AND expires_at > $5::timestamptz)),
         refused AS (
           SELECT series, folio FROM invoices
           WHERE transaction_id = ($2::text[])[1] AND status = 'REFUSED' AND uuid IS NULL
           ORDER BY created_at DESC LIMIT 1),
         numbered AS (
           INSERT INTO merchant_folios AS f (merchant_id, last_folio) SELECT $3, 1 FROM claimable WHERE NOT EXISTS (SELECT 1 FROM refused)
           ON CONFLICT (merchant_id) DO UPDATE SET last_folio = f.last_folio + 1
           RETURNING last_folio),
         invoice AS (
           INSERT INTO invoices (id, transaction_id, merchant_id, customer, status, series, folio)
           SELECT $1, ($2::text[])[1], $3, $4::jsonb, 'STAMPING',
                  CASE WHEN EXISTS (SELECT 1 FROM refused) THEN (SELECT series FROM refused)
                       ELSE (SELECT serial_number_prefix FROM merchant_csds WHERE merchant_id = $3) END,
                  COALESCE((SELECT folio FROM refused), (SELECT last_folio FROM numbered))
           FROM claimable
           RETURNING *),
         tickets AS (
           INSERT INTO invoice_tickets (invoice_id, position, transaction_id)
           SELECT i.id, t.position::int - 1, t.id FROM invoice i, unnest($2::text[]) WITH ORDINALITY AS t(id, position)),
         confirmed AS (
           UPDATE ${sales.table} q SET status = 'SCANNED', scanned_at = coalesce(q.scanned_at, now()), confirmed_at = now(), updated_at = now()
           FROM invoice WHERE q.id ${sales.ids}${sales.months('q.created_at')}),
         events AS (
           INSERT INTO webhook_events (id, account_id, type, payload, created_at)
           SELECT e.id, m.account_id, 'qr.scanned',
                  jsonb_build_object('id', e.id, 'type', 'qr.scanned', 'created_at', $7::text,
                                     'data', jsonb_build_object('qr_id', l.id, 'sale_id', l.sale_id, 'store_uid', l.store_uid, 'status', 'SCANNED')),
                  $7::timestamptz
           FROM unnest($2::text[], $6::text[]) AS e(qr_id, id)
           JOIN locked l ON l.id = e.qr_id AND l.status = 'PENDING'
           JOIN merchants m ON m.id = l.merchant_id
           WHERE EXISTS (SELECT 1 FROM invoice) AND ${endpointWants('m.account_id', "'qr.scanned'")})
         SELECT invoice.*, (SELECT count(*) FROM locked WHERE status = 'PENDING')::int AS scanned_now FROM invoice`;

/** On the parent table, the QRs' months named by their ids' instants ($8): several tickets, or a sale of the old table's keys. */
export const CONFIRM_OPEN_QRS: PreparedStatement = {
  name: 'confirm_open_qrs_v2',
  text: confirmOpenQrs({ table: 'qr_transactions', months: (column) => ` AND ${idsMonths(column, '$8')}`, ids: '= ANY($2::text[])' }),
};

/**
 * A one-ticket confirmation, the common one, on the month partition its id names (issue #40). On the parent
 * PostgreSQL planned the statement anew at every run (2.2 ms of planning a confirmation, on the generic plan's
 * every month and array of ids looking dearer than a custom plan), and a generic plan there would lock every
 * month's partition; here it keeps its generic plan (0.8 ms of PostgreSQL CPU a confirmation against 2.2 at 17
 * months and 2.9 at 63). A sale that is not there (one of the legacy partition) makes it claim nothing, and the
 * transaction below decides.
 */
const confirmOpenQrsIn = perPartition('confirm_open_qrs_v3', (partition) =>
  confirmOpenQrs({ table: partitionOf('qr_transactions', partition), months: () => '', ids: '= ($2::text[])[1]' }),
);

/**
 * Accepts a buyer's (or a merchant's) confirmation: in one statement when its QRs are open (CONFIRM_OPEN_QRS),
 * else in the transaction below, which finds why not (or claims them, changed meanwhile). A second
 * confirmation of the same first QR meets the unique index: 'already_confirmed' with the live invoice.
 */
export async function recordConfirmation(
  db: Db,
  input: { invoiceId: string; transactionIds: readonly [string, ...string[]]; merchantId: string; customer: Customer },
): Promise<ConfirmOutcome> {
  const createdAt = new Date().toISOString();
  let row: (InvoiceRow & { scanned_now: number }) | undefined;
  const values = [
    input.invoiceId,
    input.transactionIds,
    input.merchantId,
    JSON.stringify(input.customer),
    new Date(),
    input.transactionIds.map(() => newId('webhookEvent')),
    createdAt,
  ];
  const partition = input.transactionIds.length === 1 ? monthPartitionOf(input.transactionIds[0]) : undefined;
  try {
    [row] = partition
      ? await runInPartition<InvoiceRow & { scanned_now: number }>(db, confirmOpenQrsIn(partition), values)
      : await runPrepared<InvoiceRow & { scanned_now: number }>(db, CONFIRM_OPEN_QRS, [...values, instantsOfIds(input.transactionIds)]);
  } catch (err) {
    if ((err as { code?: string }).code === UNIQUE_VIOLATION) return { ok: false, reason: 'already_confirmed', invoice: await liveInvoice(db, input.transactionIds[0]) };
    throw err;
  }
  if (!row) return recordConfirmationInTransaction(db, input);
  const { scanned_now: scannedNow, ...invoice } = row;
  // As below: tickets entering SCANNED here are counted once committed.
  if (scannedNow > 0) qrTransitions.inc({ status: 'SCANNED' }, scannedNow);
  return { ok: true, invoice };
}

/**
 * Accepts a buyer's confirmation in one transaction: locks the QRs (the first one and any further tickets
 * of the same invoice, in id order so two confirmations cannot deadlock), checks they are all still open,
 * takes the folio of the first QR's refused attempt (no CFDI was stamped with it) or else the merchant's
 * next one, writes the invoice as STAMPING with its tickets and marks every QR confirmed (so none expires
 * while stamping). Two confirmations claiming one ticket at once: the row lock serializes them, the second
 * finds it confirmed; the unique index (one non-refused invoice per first ticket) is the final word.
 */
async function recordConfirmationInTransaction(
  db: Db,
  input: { invoiceId: string; transactionIds: readonly [string, ...string[]]; merchantId: string; customer: Customer },
): Promise<ConfirmOutcome> {
  const [transactionId] = input.transactionIds;
  let scannedNow = 0;
  try {
    const outcome = await db.transaction(async (trx) => {
      const locked = (await trx('qr_transactions')
        .whereIn('id', input.transactionIds)
        .orderBy('id')
        .forUpdate()
        .select('id', 'merchant_id', 'status', 'expires_at', 'confirmed_at', 'sale_id', 'store_uid', 'global_invoice_id')) as LockedQr[];
      const byId = new Map(locked.map((q) => [q.id, q]));
      const qr = byId.get(transactionId);
      if (!qr) return { ok: false, reason: 'not_found' } as const;
      if (qr.status === 'INVOICED') return { ok: false, reason: 'invoiced', invoice: await liveInvoice(trx, transactionId) } as const;
      if (qr.status === 'CANCELLED') return { ok: false, reason: 'cancelled' } as const;
      if (qr.confirmed_at) return { ok: false, reason: 'already_confirmed', invoice: await liveInvoice(trx, transactionId) } as const;
      const now = new Date();
      if (isExpired(qr, now)) return { ok: false, reason: 'expired' } as const;
      const problems = input.transactionIds.flatMap((id, index) => {
        const reason = index === 0 ? undefined : ticketProblem(byId.get(id), now);
        return reason ? [{ index, reason }] : [];
      });
      if (problems.length > 0) return { ok: false, reason: 'tickets_unavailable', problems } as const;

      const row = { id: input.invoiceId, transaction_id: transactionId, merchant_id: input.merchantId, customer: JSON.stringify(input.customer) };
      // A refused attempt stamped no CFDI: its Serie and folio are this attempt's, so refusals leave no gap.
      const refused = (await trx('invoices')
        .where({ transaction_id: transactionId, status: 'REFUSED' })
        .whereNull('uuid')
        .orderBy('created_at', 'desc')
        .first('series', 'folio')) as { series: string | null; folio: string } | undefined;
      const invoice = refused
        ? (
            (await trx('invoices')
              .insert({ ...row, status: 'STAMPING', series: refused.series, folio: refused.folio })
              .returning('*')) as InvoiceRow[]
          )[0]
        : await insertNumbered(trx, row);
      await trx('invoice_tickets').insert(input.transactionIds.map((id, position) => ({ invoice_id: input.invoiceId, position, transaction_id: id })));
      await trx('qr_transactions')
        .whereIn('id', input.transactionIds)
        .update({
          status: 'SCANNED',
          scanned_at: trx.raw('coalesce(scanned_at, now())'),
          confirmed_at: trx.fn.now(),
          updated_at: trx.fn.now(),
        });
      const scanned = input.transactionIds.map((id) => byId.get(id)!).filter((q) => q.status === 'PENDING');
      scannedNow = scanned.length;
      if (scanned.length > 0) {
        await emitEvents(
          trx,
          'qr.scanned',
          scanned.map((q) => ({ merchantId: q.merchant_id, data: qrEventData({ id: q.id, sale_id: q.sale_id, store_uid: q.store_uid, status: 'SCANNED' }) })),
        );
      }
      return { ok: true, invoice: invoice! } as const;
    });
    // Tickets added to the invoice (or confirmed by the merchant unopened) enter SCANNED here, as the
    // status page's scanned_at says: /metrics counts them too, once the transaction has committed.
    if (outcome.ok && scannedNow > 0) qrTransitions.inc({ status: 'SCANNED' }, scannedNow);
    return outcome;
  } catch (err) {
    if ((err as { code?: string }).code === UNIQUE_VIOLATION) return { ok: false, reason: 'already_confirmed', invoice: await liveInvoice(db, transactionId) };
    throw err;
  }
}

/**
 * Inserts a CFDI to stamp (STAMPING) with the merchant's next folio, inside the caller's transaction: one
 * sequence per merchant for invoices and credit notes alike, so a folio never repeats.
 */
export async function insertNumbered(trx: Trx, row: Record<string, unknown> & { id: string; merchant_id: string }): Promise<InvoiceRow> {
  const [folio] = (await trx('merchant_folios')
    .insert({ merchant_id: row.merchant_id, last_folio: 1 })
    .onConflict('merchant_id')
    .merge({ last_folio: trx.raw('merchant_folios.last_folio + 1') })
    .returning('last_folio')) as { last_folio: string }[];
  const [invoice] = (await trx('invoices')
    .insert({
      ...row,
      status: 'STAMPING',
      folio: folio!.last_folio,
      // Serie: the merchant's serialNumberPrefix (kept with its CSD) at the time of recording.
      series: trx.raw('(SELECT serial_number_prefix FROM merchant_csds WHERE merchant_id = ?)', [row.merchant_id]),
    })
    .returning('*')) as InvoiceRow[];
  return invoice!;
}

/** The invoices covering a transaction (as its first ticket or a further one). */
function invoicesOfTicket(db: Db | Trx, transactionId: string) {
  return db('invoices as i').join('invoice_tickets as k', 'k.invoice_id', 'i.id').where('k.transaction_id', transactionId);
}

/** The transaction's invoice that is stamping or stamped, if any. */
export async function liveInvoice(db: Db | Trx, transactionId: string): Promise<InvoiceRow | undefined> {
  return (await invoicesOfTicket(db, transactionId).whereNot('i.status', 'REFUSED').first('i.*')) as InvoiceRow | undefined;
}

/** The latest confirmation of a transaction, whatever its outcome (the buyer's status page shows it). */
export async function latestInvoice(db: Db, transactionId: string): Promise<InvoiceRow | undefined> {
  return (await invoicesOfTicket(db, transactionId).orderBy('i.created_at', 'desc').first('i.*')) as InvoiceRow | undefined;
}

// Each confirmed invoice reads its row, its tickets and its twin check several times on its way through
// the stamp, PDF and e-mail jobs: prepared statements (see runPrepared).
const TICKET_IDS: PreparedStatement = { name: 'invoice_ticket_ids_v1', text: 'SELECT transaction_id FROM invoice_tickets WHERE invoice_id = $1 ORDER BY position' };
const FIND_INVOICE: PreparedStatement = { name: 'find_invoice_v1', text: 'SELECT * FROM invoices WHERE id = $1' };
const SAVE_SEALED: PreparedStatement = {
  name: 'save_sealed_document_v1',
  text: "UPDATE invoices SET sealed_xml = $2, issued_local = $3, updated_at = CURRENT_TIMESTAMP WHERE id = $1 AND status = 'STAMPING'",
};

/** The QR sales an invoice covers, in the order of its concepts (none for a credit note, complement or global invoice). */
export async function invoiceTicketIds(db: Db | Trx, invoiceId: string): Promise<string[]> {
  const rows = await runPrepared<{ transaction_id: string }>(db, TICKET_IDS, [invoiceId]);
  return rows.map((r) => r.transaction_id);
}

/** The QR rows of an invoice's tickets (a subquery for updates). */
function ticketIdsOf(trx: Trx, invoiceId: string) {
  return trx('invoice_tickets').where({ invoice_id: invoiceId }).select('transaction_id');
}

export async function findInvoice(db: Db, invoiceId: string): Promise<InvoiceRow | undefined> {
  const [row] = await runPrepared<InvoiceRow>(db, FIND_INVOICE, [invoiceId]);
  return row;
}

const TO_STAMP_SELECT = `SELECT i.*,
           COALESCE((SELECT json_agg(json_build_object('id', q.id, 'merchant_id', q.merchant_id, 'sale_id', q.sale_id, 'store_uid', q.store_uid, 'position', t.position)
                     ORDER BY t.position)
                     FROM invoice_tickets t JOIN qr_transactions q ON q.id = t.transaction_id AND q.created_at = t.transaction_created_at
                     WHERE t.invoice_id = i.id), '[]') AS tickets,
           (SELECT c.updated_at FROM merchant_csds c WHERE c.merchant_id = i.merchant_id) AS csd_updated_at
         FROM invoices i`;
const FIND_STAMPING: PreparedStatement = { name: 'find_invoice_to_stamp_v2', text: `${TO_STAMP_SELECT} WHERE i.id = $1` };
// A stamp batch's invoices (issue #40): one statement for all of them.
const FIND_STAMPING_BATCH: PreparedStatement = { name: 'find_invoices_to_stamp_v2', text: `${TO_STAMP_SELECT} WHERE i.id = ANY($1::text[])` };

/** An invoice as its stamp job reads it (findInvoiceToStamp) and records it (recordStamp). */
export interface InvoiceToStamp {
  invoice: InvoiceRow;
  /** Its tickets' QRs in order (none for a credit note, payment complement or global invoice). */
  tickets: TicketSale[];
  /** When its merchant's CSD last changed (null: it has none): a cached signer is reused without reading the key. */
  csdUpdatedAt: Date | null;
}

type ToStampRow = InvoiceRow & { tickets: TicketSale[]; csd_updated_at: Date | null };

function toStamp({ tickets, csd_updated_at, ...invoice }: ToStampRow): InvoiceToStamp {
  return { invoice, tickets, csdUpdatedAt: csd_updated_at };
}

/** What a stamp job reads, in one round trip: the invoice, its tickets' QRs and its CSD's last change. */
export async function findInvoiceToStamp(db: Db, invoiceId: string): Promise<InvoiceToStamp | undefined> {
  const [row] = await runPrepared<ToStampRow>(db, FIND_STAMPING, [invoiceId]);
  return row && toStamp(row);
}

/** The same for a stamp batch's invoices, in one round trip, by id (an id without a row is missing). */
export async function findInvoicesToStamp(db: Db, invoiceIds: readonly string[]): Promise<Map<string, InvoiceToStamp>> {
  const rows = await runPrepared<ToStampRow>(db, FIND_STAMPING_BATCH, [invoiceIds]);
  return new Map(rows.map((row) => [row.id, toStamp(row)]));
}

/** What every invoice's PDF and e-mail print of their store. */
export interface InvoiceStoreFacts {
  name: string;
  contactEmail: string | null;
  invoiceLogoUrl: string | null;
}

const FIND_INVOICE_WITH_STORE: PreparedStatement = {
  name: 'find_invoice_with_store_v1',
  text: `SELECT i.*, m.name AS store_name, m.contact_email AS store_contact_email, m.invoice_logo_url AS store_invoice_logo_url
         FROM invoices i JOIN merchants m ON m.id = i.merchant_id WHERE i.id = $1`,
};

const FIND_INVOICES_WITH_STORE: PreparedStatement = {
  name: 'find_invoices_with_store_v1',
  text: `SELECT i.*, m.name AS store_name, m.contact_email AS store_contact_email, m.invoice_logo_url AS store_invoice_logo_url
         FROM invoices i JOIN merchants m ON m.id = i.merchant_id WHERE i.id = ANY($1::text[])`,
};

type WithStoreRow = InvoiceRow & { store_name: string; store_contact_email: string | null; store_invoice_logo_url: string | null };

export interface InvoiceWithStore {
  invoice: InvoiceRow;
  store: InvoiceStoreFacts;
}

function withStore({ store_name, store_contact_email, store_invoice_logo_url, ...invoice }: WithStoreRow): InvoiceWithStore {
  return { invoice, store: { name: store_name, contactEmail: store_contact_email, invoiceLogoUrl: store_invoice_logo_url } };
}

/** An invoice and what its PDF and e-mail print of its store, in one round trip (each of those jobs reads both). */
export async function findInvoiceWithStore(db: Db, invoiceId: string): Promise<InvoiceWithStore | undefined> {
  const [row] = await runPrepared<WithStoreRow>(db, FIND_INVOICE_WITH_STORE, [invoiceId]);
  return row && withStore(row);
}

/** The same for an e-mail batch's invoices, in one round trip (an id without a row is missing). */
export async function findInvoicesWithStore(db: Db, invoiceIds: readonly string[]): Promise<InvoiceWithStore[]> {
  return (await runPrepared<WithStoreRow>(db, FIND_INVOICES_WITH_STORE, [invoiceIds])).map(withStore);
}

/** Keeps the sealed document before it goes to the PAC, so every retry sends the very same bytes. */
export async function saveSealedDocument(db: Db, invoiceId: string, sealedXml: string, issuedLocal: string): Promise<void> {
  await runPrepared(db, SAVE_SEALED, [invoiceId, sealedXml, issuedLocal]);
}

const SAVE_TWIN_RESEAL: PreparedStatement = {
  name: 'save_twin_reseal_v1',
  text: "UPDATE invoices SET sealed_xml = $2, issued_local = $3, stamp_twins = $4, updated_at = CURRENT_TIMESTAMP WHERE id = $1 AND status = 'STAMPING'",
};

/**
 * The document sealed again after `twins` customids ended with other invoices' stamps, with that count: one
 * statement, so a later run sends this document under the next customid and never walks those again.
 */
export async function saveTwinReseal(db: Db, invoiceId: string, sealedXml: string, issuedLocal: string, twins: number): Promise<void> {
  await runPrepared(db, SAVE_TWIN_RESEAL, [invoiceId, sealedXml, issuedLocal, twins]);
}

const SAVE_SEALED_BATCH: PreparedStatement = {
  name: 'save_sealed_documents_v1',
  text: `UPDATE invoices i SET sealed_xml = s.xml, issued_local = s.issued_local, updated_at = CURRENT_TIMESTAMP
         FROM unnest($1::text[], $2::text[], $3::text[]) AS s(id, xml, issued_local)
         WHERE i.id = s.id AND i.status = 'STAMPING'`,
};

/** saveSealedDocument for a stamp batch's documents, in one statement. */
export async function saveSealedDocuments(db: Db, documents: readonly { invoiceId: string; sealedXml: string; issuedLocal: string }[]): Promise<void> {
  if (documents.length === 0) return;
  await runPrepared(db, SAVE_SEALED_BATCH, [documents.map((d) => d.invoiceId), documents.map((d) => d.sealedXml), documents.map((d) => d.issuedLocal)]);
}

/**
 * Names a STAMPING invoice whose stamp the PAC withholds (it says it stamped, and does not hand the stamp
 * over): the sweep leaves it alone until an operator clears the mark (docs/operations.md, "Runbook").
 */
export async function markStampWithheld(db: Db, invoiceId: string, at: Date): Promise<void> {
  await db('invoices')
    .where({ id: invoiceId, status: 'STAMPING' })
    .update({ stamp_withheld_at: db.raw('COALESCE(stamp_withheld_at, ?)', [at]), updated_at: db.fn.now() });
}

/** Clears the mark of a withheld stamp (the operator's retry): false when the invoice is not STAMPING with one. */
export async function clearStampWithheld(db: Db, invoiceId: string): Promise<boolean> {
  const cleared = await db('invoices').where({ id: invoiceId, status: 'STAMPING' }).whereNotNull('stamp_withheld_at').update({ stamp_withheld_at: null, updated_at: db.fn.now() });
  return cleared > 0;
}

/**
 * Records a stamp in one statement (its own transaction): the invoice ACTIVE with its UUID, its QRs INVOICED
 * and the stamp's outbox events, all or nothing. The events are made from what the stamp job read (a
 * ticket's QR, merchant, sale and store never change) and are written only if the invoice was still
 * STAMPING. Answers 'recorded' with how many QRs it invoiced, 'not-stamping' when already recorded, or
 * 'uuid-taken' when another invoice recorded this UUID first (nothing is written).
 */
export async function recordStamp(
  db: Db,
  { invoice, tickets }: Pick<InvoiceToStamp, 'invoice' | 'tickets'>,
  stamp: { uuid: string; stampedAt: Date; xmlFileKey: string; subtotal: string; discount: string; total: string },
): Promise<{ outcome: 'recorded'; qrsInvoiced: number } | { outcome: 'not-stamping' | 'uuid-taken' }> {
  const stamped: InvoiceRow = { ...invoice, status: 'ACTIVE', uuid: stamp.uuid, total: stamp.total };
  const type = stampedEvent(stamped);
  const { createdAt, events } = outboxEvents(type, stampedEventsByMerchant(stamped, tickets));
  try {
    const [row] = await runPrepared<{ stamped: number; invoiced: number }>(db, RECORD_STAMP, [
      invoice.id,
      stamp.uuid,
      stamp.stampedAt,
      stamp.xmlFileKey,
      stamp.subtotal,
      stamp.discount,
      stamp.total,
      type,
      createdAt,
      JSON.stringify(events),
      instantsOfIds(tickets.map((t) => t.id)),
    ]);
    if (!row || row.stamped === 0) return { outcome: 'not-stamping' };
    return { outcome: 'recorded', qrsInvoiced: row.invoiced };
  } catch (err) {
    const { code, constraint } = err as { code?: string; constraint?: string };
    if (code === UNIQUE_VIOLATION && constraint === 'invoices_uuid_unique') return { outcome: 'uuid-taken' };
    throw err;
  }
}

/** A QR an invoice covers, with its place among the invoice's tickets. */
type TicketSale = { id: string; merchant_id: string; sale_id: string; store_uid: string; position: number };

// Data-modifying CTEs all run, in one snapshot: the QRs and events only where the invoice's update matched.
export const RECORD_STAMP: PreparedStatement = {
  name: 'record_stamp_v2',
  text: `WITH stamped AS (
           UPDATE invoices SET status = 'ACTIVE', uuid = $2, stamped_at = $3, xml_file_key = $4, subtotal = $5, discount = $6, total = $7,
                  updated_at = CURRENT_TIMESTAMP
           WHERE id = $1 AND status = 'STAMPING' RETURNING id),
         invoiced AS (
           UPDATE qr_transactions q SET status = 'INVOICED', updated_at = CURRENT_TIMESTAMP FROM invoice_tickets t, stamped s
           WHERE t.invoice_id = s.id AND q.id = t.transaction_id AND q.created_at = t.transaction_created_at AND ${idsMonths('q.created_at', '$11')}
           RETURNING q.id),
         events AS (
           INSERT INTO webhook_events (id, account_id, type, payload, created_at)
           SELECT v.id, m.account_id, $8, v.payload, $9
           FROM jsonb_to_recordset($10::jsonb) AS v(id text, merchant_id text, payload jsonb)
           JOIN merchants m ON m.id = v.merchant_id
           WHERE EXISTS (SELECT 1 FROM stamped) AND ${endpointWants('m.account_id', '$8')})
         SELECT (SELECT count(*) FROM stamped)::int AS stamped, (SELECT count(*) FROM invoiced)::int AS invoiced`,
};

/**
 * The stamp's event for each merchant whose sales the invoice covers. The sale's own ids travel with it,
 * as in qr.scanned: the POS matches it to its ticket. An invoice of several tickets lists that merchant's
 * tickets in `tickets`, and `qr_id` is the first of them.
 */
function stampedEventsByMerchant(stamped: InvoiceRow, sales: TicketSale[]): { merchantId: string; data: Record<string, unknown> }[] {
  if (sales.length === 0) return [{ merchantId: stamped.merchant_id, data: invoiceEventData(stamped) }];
  const merchants = [...new Set([stamped.merchant_id, ...sales.map((s) => s.merchant_id)])];
  return merchants.flatMap((merchantId) => {
    const own = sales.filter((s) => s.merchant_id === merchantId);
    const first = own[0];
    if (!first) return [];
    const several = sales.length > 1 ? { tickets: own.map((s) => ({ qr_id: s.id, sale_id: s.sale_id, store_uid: s.store_uid })) } : {};
    return [{ merchantId, data: invoiceEventData(stamped, { qr_id: first.id, sale_id: first.sale_id, store_uid: first.store_uid, ...several }) }];
  });
}

/** What a stamp is announced as: a QR sale's invoice, a credit note, a payment complement, or a global invoice (type I without a QR). */
function stampedEvent(row: InvoiceRow): WebhookEventType {
  if (row.cfdi_type === 'E') return 'credit_note.stamped';
  if (row.cfdi_type === 'P') return 'payment_complement.stamped';
  return row.transaction_id ? 'invoice.stamped' : 'global_invoice.stamped';
}

/**
 * A refusal ends this confirmation; its QRs are open again (and may now expire) for a corrected one. A
 * global invoice's sales are released to the period's next global invoice.
 */
export async function recordRefusal(db: Db, invoiceId: string, refusal: InvoiceRefusal): Promise<void> {
  await db.transaction(async (trx) => {
    const [refused] = (await trx('invoices')
      .where({ id: invoiceId, status: 'STAMPING' })
      .update({ status: 'REFUSED', refusal: JSON.stringify(refusal), updated_at: trx.fn.now() }, '*')) as InvoiceRow[];
    if (!refused) return;
    const released = (await trx('qr_transactions')
      .whereIn('id', ticketIdsOf(trx, invoiceId))
      .update({ confirmed_at: null, updated_at: trx.fn.now() }, ['id', 'sale_id', 'store_uid'])) as { id: string; sale_id: string; store_uid: string }[];
    // A refused global invoice reports nothing: its sales go back to be reported by the period's next one.
    await trx('qr_transactions').where({ global_invoice_id: invoiceId }).update({ global_invoice_id: null, updated_at: trx.fn.now() });
    const sale = released.find((s) => s.id === refused.transaction_id);
    await emitEvents(trx, 'invoice.failed', [
      { merchantId: refused.merchant_id, data: invoiceEventData(refused, { ...(sale ? { sale_id: sale.sale_id, store_uid: sale.store_uid } : {}), error: refusal }) },
    ]);
  });
}

// A cache fill, not a change of the invoice: updated_at stays. The first of two concurrent fills wins.
const ATTACH_PDF: PreparedStatement = { name: 'attach_pdf_v2', text: 'UPDATE invoices SET pdf_file_key = $2 WHERE id = $1 AND pdf_file_key IS NULL' };
const EMAIL_SENT: PreparedStatement = { name: 'mark_email_sent_v1', text: 'UPDATE invoices SET email_sent_at = CURRENT_TIMESTAMP, updated_at = CURRENT_TIMESTAMP WHERE id = $1' };

/** Keeps the key of the invoice's rendered PDF, unless one is kept already. */
export async function attachPdf(db: Db, invoiceId: string, pdfFileKey: string): Promise<void> {
  await runPrepared(db, ATTACH_PDF, [invoiceId, pdfFileKey]);
}

export async function markEmailSent(db: Db, invoiceId: string): Promise<void> {
  await runPrepared(db, EMAIL_SENT, [invoiceId]);
}

const EMAILS_SENT: PreparedStatement = {
  name: 'mark_emails_sent_v1',
  text: 'UPDATE invoices SET email_sent_at = CURRENT_TIMESTAMP, updated_at = CURRENT_TIMESTAMP WHERE id = ANY($1::text[])',
};

/** markEmailSent for an e-mail batch's sent mails, in one statement. */
export async function markEmailsSent(db: Db, invoiceIds: readonly string[]): Promise<void> {
  if (invoiceIds.length > 0) await runPrepared(db, EMAILS_SENT, [invoiceIds]);
}

export async function markEmailRefused(db: Db, invoiceId: string): Promise<void> {
  await db('invoices').where({ id: invoiceId }).update({ email_refused_at: db.fn.now(), updated_at: db.fn.now() });
}

/** A stamped invoice by fiscal UUID, seen by one merchant or by every merchant of one account. */
export async function findInvoiceByUuid(db: Db, uuid: string, scope: { merchantId: string } | { accountId: string }): Promise<InvoiceRow | undefined> {
  const query = db('invoices as i')
    .join('merchants as m', 'm.id', 'i.merchant_id')
    .where('i.uuid', uuid.toUpperCase())
    .whereNot('i.status', 'STAMPING')
    .whereNot('i.status', 'REFUSED');
  if ('merchantId' in scope) query.where('i.merchant_id', scope.merchantId);
  else query.where('m.account_id', scope.accountId);
  return (await query.first('i.*')) as InvoiceRow | undefined;
}

const withheld = (db: Db) => db('invoices').where({ status: 'STAMPING' }).whereNotNull('stamp_withheld_at');

/** Invoices whose stamp the PAC withheld through every attempt (workers/stamp-invoice.ts): a CFDI at SAT not recorded here. */
export async function countWithheldStamps(db: Db): Promise<number> {
  const row = (await withheld(db).count({ n: '*' }).first()) as { n: string | number } | undefined;
  return Number(row?.n ?? 0);
}

export async function listWithheldStamps(db: Db, limit: number): Promise<{ id: string; merchantId: string; since: Date }[]> {
  const rows = (await withheld(db).orderBy('stamp_withheld_at').limit(limit).select('id', 'merchant_id', 'stamp_withheld_at')) as {
    id: string;
    merchant_id: string;
    stamp_withheld_at: Date;
  }[];
  return rows.map((r) => ({ id: r.id, merchantId: r.merchant_id, since: r.stamp_withheld_at }));
}
