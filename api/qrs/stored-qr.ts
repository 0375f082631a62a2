import type { ApiKeyPrincipal } from '../../shared/repositories/api-keys.js';
import { findQrTransaction, type StoredQr } from '../../shared/repositories/qr-transactions.js';
import { findInvoice, liveInvoice, type InvoiceRow } from '../../shared/repositories/invoices.js';
import { mayHaveStampedInvoice } from '../../shared/domain/qr-lifecycle.js';
import { onReplicaOrPrimary, type Db, type DbHandles } from '../../shared/platform/db.js';
import { fixedViewParts, type FixedViewParts, type ViewContext, type ViewedQr } from '../contract/qrs/qr-transaction-view.js';

/** One of the principal's transactions as its view needs it; the names are the principal's (the same merchant's row). */
export async function findOwnQr(db: Db, principal: ApiKeyPrincipal, qrId: string): Promise<ViewedQr | undefined> {
  const stored = await findQrTransaction(db, principal.merchantId, principal.mode, qrId);
  return stored && { ...stored, storeName: principal.merchantName, issuerRfc: principal.issuerRfc, issuerName: principal.issuerName };
}

export interface ReadQr {
  record: ViewedQr;
  invoice?: InvoiceRow;
  globalInvoice?: InvoiceRow;
}

/**
 * GET /v1/qrs/{qrId}'s reads, on the replica: a POS polling its QR may see a state change its lag late. A QR the
 * replica has not replayed yet (the GET right after its POST) is read on the primary, and so are its invoices then.
 */
export async function readOwnQr(handles: DbHandles, principal: ApiKeyPrincipal, qrId: string): Promise<ReadQr | undefined> {
  const read = await onReplicaOrPrimary(handles, (db) => findOwnQr(db, principal, qrId));
  if (!read) return undefined;
  const { found: record, db } = read;
  const globalId = record.transaction.global_invoice_id;
  // A pending or scanned QR has no stamped invoice: no query for it (the common read, a POS polling).
  const invoice = mayHaveStampedInvoice(record.transaction.status) ? await liveInvoice(db, record.transaction.id) : undefined;
  return { record, invoice, globalInvoice: globalId ? await findInvoice(db, globalId) : undefined };
}

interface Kept {
  token: string;
  expiresAtMs: number;
  currency: string;
  ctx: ViewContext;
  parts: FixedViewParts;
}

function sameContext(a: ViewContext, b: ViewContext): boolean {
  return a.catalogs === b.catalogs && a.publicBaseUrl === b.publicBaseUrl && a.qrHmacKey === b.qrHmacKey && a.urlSigningKey === b.urlSigningKey;
}

const KEPT = 2048;

/**
 * The fixed parts of recently read transactions' views, by id (a POS polls the QR it just made): two MACs,
 * the concepts' decimals and catalog lookups and the totals, done once per transaction and process. Only for
 * records read from qr_transactions by id, whose concepts and taxes are never changed; the columns and the
 * context the parts follow from are compared on every use all the same. Most recently used last (a Map keeps insertion order).
 */
export class FixedViewCache {
  readonly #entries = new Map<string, Kept>();

  constructor(private readonly maxEntries: number = KEPT) {}

  parts(record: StoredQr, ctx: ViewContext): FixedViewParts {
    const t = record.transaction;
    const kept = this.#entries.get(t.id);
    if (kept && kept.token === t.token && kept.expiresAtMs === t.expires_at.getTime() && kept.currency === t.currency && sameContext(kept.ctx, ctx)) {
      this.#entries.delete(t.id);
      this.#entries.set(t.id, kept);
      return kept.parts;
    }
    const parts = fixedViewParts(record, ctx);
    this.#entries.delete(t.id);
    this.#entries.set(t.id, { token: t.token, expiresAtMs: t.expires_at.getTime(), currency: t.currency, ctx, parts });
    if (this.#entries.size > this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    return parts;
  }
}

/** This process's: the API's apps share it (their contexts are compared, so tests' apps with other keys do not mix). */
export const fixedViewCache = new FixedViewCache();
