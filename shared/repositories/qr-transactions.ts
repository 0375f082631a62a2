import type { Db, Trx } from '../db.js';
import type { KeyMode } from './api-keys.js';
import type { GlobalInfo, RelatedCfdis, TaxFactor, TaxType } from '../qr/qr-request.js';

export type QrStatus = 'PENDING' | 'SCANNED' | 'INVOICED' | 'EXPIRED' | 'CANCELLED';

/** A QR transaction as stored; numeric columns are exact decimal strings. */
export interface QrTransactionRow {
  id: string;
  merchant_id: string;
  mode: KeyMode;
  store_uid: string;
  sale_id: string;
  idempotency_key: string;
  operation: string;
  amount: string;
  subtotal: string;
  currency: string;
  exchange_rate: string | null;
  sat_payment_method: string;
  sat_payment_form: string;
  type_of_receipt: string;
  export_code: string;
  status: QrStatus;
  related_cfdis: RelatedCfdis | null;
  global_info: GlobalInfo | null;
  metadata: Record<string, string> | null;
  token: string;
  time_zone: string;
  issued_local: string;
  qr_png: Buffer;
  created_at: Date;
  updated_at: Date;
  scanned_at: Date | null;
  expires_at: Date;
}

export interface QrConceptRow {
  transaction_id: string;
  position: number;
  sku: string | null;
  description: string;
  amount: string;
  quantity: string;
  discount: string | null;
  unit_price: string;
  sat_unit_key: string;
  sat_product_service_key: string;
  sat_tax_object_key: string;
}

export interface QrConceptTaxRow {
  transaction_id: string;
  concept_position: number;
  position: number;
  type: TaxType;
  tax: string;
  factor: TaxFactor;
  rate: string | null;
  taxable_base: string;
  amount: string | null;
}

/** A transaction with its concepts and their taxes, and the names the response shows. */
export interface QrTransactionRecord {
  transaction: QrTransactionRow;
  concepts: QrConceptRow[];
  taxes: QrConceptTaxRow[];
  storeName: string;
  issuerRfc: string;
  issuerName: string;
}

// jsonb columns go in as JSON text so arrays are not mistaken for Postgres arrays.
function jsonOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** Writes the transaction, its concepts and taxes: three statements, inside the caller's transaction. */
export async function insertQrTransaction(trx: Trx, record: Omit<QrTransactionRecord, 'storeName' | 'issuerRfc' | 'issuerName'>): Promise<void> {
  const t = record.transaction;
  await trx('qr_transactions').insert({
    ...t,
    related_cfdis: jsonOrNull(t.related_cfdis),
    global_info: jsonOrNull(t.global_info),
    metadata: jsonOrNull(t.metadata),
  });
  await trx('qr_concepts').insert(record.concepts);
  if (record.taxes.length > 0) await trx('qr_concept_taxes').insert(record.taxes);
}

/** One transaction of one merchant in one mode, or undefined (another merchant's is as unknown as a missing one). */
export async function findQrTransaction(db: Db, merchantId: string, mode: KeyMode, qrId: string): Promise<QrTransactionRecord | undefined> {
  const row = (await db('qr_transactions as t')
    .join('merchants as m', 'm.id', 't.merchant_id')
    .join('issuers as i', 'i.id', 'm.issuer_id')
    .where({ 't.id': qrId, 't.merchant_id': merchantId, 't.mode': mode })
    .first('t.*', 'm.name as store_name', 'i.rfc as issuer_rfc', 'i.business_name as issuer_name')) as
    | (QrTransactionRow & { store_name: string; issuer_rfc: string; issuer_name: string })
    | undefined;
  if (!row) return undefined;
  const { store_name, issuer_rfc, issuer_name, ...transaction } = row;
  const [concepts, taxes] = await Promise.all([
    db<QrConceptRow>('qr_concepts').where({ transaction_id: qrId }).orderBy('position'),
    db<QrConceptTaxRow>('qr_concept_taxes').where({ transaction_id: qrId }).orderBy(['concept_position', 'position']),
  ]);
  return { transaction, concepts, taxes, storeName: store_name, issuerRfc: issuer_rfc, issuerName: issuer_name };
}

/** Moves an open QR whose expiry has passed to EXPIRED. Invoiced or cancelled QRs are never touched. */
export async function expireQrTransactions(db: Db, options: { qrId?: string; limit?: number } = {}): Promise<string[]> {
  const open = db('qr_transactions')
    .select('id')
    .whereIn('status', ['PENDING', 'SCANNED'])
    .where('expires_at', '<=', db.fn.now())
    .limit(options.limit ?? 1000)
    .forUpdate()
    .skipLocked();
  if (options.qrId) open.where({ id: options.qrId });
  const rows = (await db('qr_transactions')
    .whereIn('id', open)
    .update({ status: 'EXPIRED', expired_at: db.fn.now(), updated_at: db.fn.now() }, ['id'])) as { id: string }[];
  return rows.map((r) => r.id);
}
