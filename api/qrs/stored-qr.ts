import type { ApiKeyPrincipal } from '../../shared/repositories/api-keys.js';
import { findQrHead, findQrTransaction, type QrViewRow, type StoredQr } from '../../shared/repositories/qr-transactions.js';
import { findInvoice, liveInvoice, type InvoiceRow } from '../../shared/repositories/invoices.js';
import { mayHaveStampedInvoice } from '../../shared/domain/qr-lifecycle.js';
import { onReplicaOrPrimary, type Db, type DbHandles } from '../../shared/platform/db.js';
import { fixedViewParts, type FixedViewParts, type ViewContext, type ViewedQr, type ViewedQrHead } from '../contract/qrs/qr-transaction-view.js';

/** The names a principal's transaction shows: the principal's own (the same merchant's row). */
function named<T extends { transaction: QrViewRow }>(stored: T, principal: ApiKeyPrincipal): T & Omit<ViewedQrHead, 'transaction'> {
  return { ...stored, storeName: principal.merchantName, issuerRfc: principal.issuerRfc, issuerName: principal.issuerName };
}

/** One of the principal's transactions as its view needs it. */
export async function findOwnQr(db: Db, principal: ApiKeyPrincipal, qrId: string): Promise<ViewedQr | undefined> {
  const stored = await findQrTransaction(db, principal.merchantId, principal.mode, qrId);
  return stored && named(stored, principal);
}

export interface ReadQr {
  record: ViewedQrHead;
  /** The parts its concepts and taxes give (fixedViewParts), kept or made. */
  fixed: FixedViewParts;
  invoice?: InvoiceRow;
  globalInvoice?: InvoiceRow;
}

/**
 * The principal's transaction with its view's fixed parts: when `cache` keeps them, its row alone (its concepts
 * and taxes, never changed, were ~40 % of the read's PostgreSQL CPU), checked against the row as always; when
 * not, or no longer by the time the row is read, the whole read (findOwnQr), whose parts are kept.
 */
async function findOwnQrView(db: Db, principal: ApiKeyPrincipal, qrId: string, ctx: ViewContext, cache: FixedViewCache) {
  if (cache.holds(qrId)) {
    const row = await findQrHead(db, principal.merchantId, principal.mode, qrId);
    if (!row) return undefined;
    const fixed = cache.kept(row, ctx);
    if (fixed) return { record: named({ transaction: row }, principal), fixed };
  }
  const record = await findOwnQr(db, principal, qrId);
  return record && { record, fixed: cache.parts(record, ctx) };
}

/**
 * GET /v1/qrs/{qrId}'s reads, on the replica: a POS polling its QR may see a state change its lag late. A QR the
 * replica has not replayed yet (the GET right after its POST) is read on the primary, and so are its invoices then.
 */
export async function readOwnQr(
  handles: DbHandles,
  principal: ApiKeyPrincipal,
  qrId: string,
  ctx: ViewContext,
  cache: FixedViewCache = fixedViewCache,
): Promise<ReadQr | undefined> {
  const read = await onReplicaOrPrimary(handles, (db) => findOwnQrView(db, principal, qrId, ctx, cache));
  if (!read) return undefined;
  const { found, db } = read;
  const t = found.record.transaction;
  // A pending or scanned QR has no stamped invoice: no query for it (the common read, a POS polling).
  const invoice = mayHaveStampedInvoice(t.status) ? await liveInvoice(db, t.id) : undefined;
  return { ...found, invoice, globalInvoice: t.global_invoice_id ? await findInvoice(db, t.global_invoice_id) : undefined };
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

  /** Whether parts of this transaction are kept (they may no longer match its row: kept() tells). */
  holds(id: string): boolean {
    return this.#entries.has(id);
  }

  /** The kept parts of this row's transaction, if they follow from what the row holds and the context; most recently used from now on. */
  kept(t: QrViewRow, ctx: ViewContext): FixedViewParts | undefined {
    const kept = this.#entries.get(t.id);
    if (!kept || kept.token !== t.token || kept.expiresAtMs !== t.expires_at.getTime() || kept.currency !== t.currency || !sameContext(kept.ctx, ctx)) return undefined;
    this.#entries.delete(t.id);
    this.#entries.set(t.id, kept);
    return kept.parts;
  }

  parts(record: StoredQr, ctx: ViewContext): FixedViewParts {
    const t = record.transaction;
    const known = this.kept(t, ctx);
    if (known) return known;
    const parts = fixedViewParts(record, ctx);
    this.#entries.delete(t.id);
    this.#entries.set(t.id, { token: t.token, expiresAtMs: t.expires_at.getTime(), currency: t.currency, ctx, parts });
    if (this.#entries.size > this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    return parts;
  }
}

/** This process's: the API's apps share it (their contexts are compared, so tests' apps with other keys do not mix). */
export const fixedViewCache = new FixedViewCache();
