import { parseXml } from '../domain/cfdi/parse-xml.js';
import { attribute } from '../domain/cfdi/xml-element.js';
import type { Db } from '../platform/db.js';
import type { FileStore } from '../platform/storage/file-store.js';

/** What the buyer is told about their cancelled invoice: which one, when it was issued, when SAT cancelled it. */
export interface CancelledInvoice {
  invoiceId: string;
  uuid: string;
  issuedAt: Date;
  /** The acuse's Fecha (SAT's time, central Mexico, as written in it), else when the cancellation was recorded. */
  cancelledAt: string;
  email: string | null;
}

/** The acuse's date (its root's Fecha attribute), as SAT wrote it. */
export function acuseDate(acuseXml: string): string | undefined {
  try {
    return attribute(parseXml(acuseXml), 'Fecha') ?? undefined;
  } catch {
    return undefined;
  }
}

/** The sale's invoice if it was cancelled (status CANCELLED), with its acuse's date. */
export async function cancelledInvoiceOf(db: Db, files: FileStore, where: { transactionId: string } | { invoiceId: string }): Promise<CancelledInvoice | undefined> {
  const row = (await db('invoices as i')
    .join('invoice_cancellations as c', 'c.invoice_id', 'i.id')
    .where('i.status', 'CANCELLED')
    .where('c.status', 'CANCELLED')
    .where((q) => {
      // A sale is covered by an invoice as its first ticket or as a further one (invoice_tickets).
      if ('transactionId' in where) void q.whereIn('i.id', db('invoice_tickets').where({ transaction_id: where.transactionId }).select('invoice_id'));
      else void q.where('i.id', where.invoiceId);
    })
    .orderBy('c.resolved_at', 'desc')
    .first('i.id', 'i.uuid', 'i.stamped_at', 'i.customer', 'c.acuse_file_key', 'c.resolved_at')) as
    { id: string; uuid: string; stamped_at: Date; customer: { email?: string } | null; acuse_file_key: string | null; resolved_at: Date | null } | undefined;
  if (!row) return undefined;
  const acuse = row.acuse_file_key ? await files.get(row.acuse_file_key) : undefined;
  const fromAcuse = acuse ? acuseDate(acuse.data.toString('utf8')) : undefined;
  return {
    invoiceId: row.id,
    uuid: row.uuid,
    issuedAt: row.stamped_at,
    cancelledAt: fromAcuse ?? (row.resolved_at ?? new Date()).toISOString(),
    email: row.customer?.email || null,
  };
}
