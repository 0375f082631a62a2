import { runPrepared, type Db, type PreparedStatement, type Trx } from '../platform/db.js';
import { emitEvents } from '../webhooks/emit-event.js';
import type { CsdInfo } from '../csd/read-csd.js';
import { boundTo, decrypt, encrypt, type Keyring } from '../platform/crypto/encrypt-at-rest.js';
import type { KeyMode } from './api-keys.js';

export interface CsdUpload {
  cer: Buffer;
  key: Buffer;
  password: string;
  cerFileName: string;
  keyFileName: string;
  serialNumberPrefix: string | null;
  businessCode: string | null;
  mode: KeyMode;
}

export interface CsdSummaryRow {
  merchant_id: string;
  cer_file_name: string;
  key_file_name: string;
  serial_number_prefix: string | null;
  business_code: string | null;
  certificate_number: string;
  rfc: string;
  valid_from: Date;
  valid_to: Date;
  mode: KeyMode;
}

/**
 * Stores (or replaces, in one statement) a merchant's CSD: the certificate in clear (it is public),
 * the private key and its password encrypted with AES-256-GCM. Returns whether one existed before.
 */
export async function saveMerchantCsd(db: Db | Trx, merchantId: string, upload: CsdUpload, csd: CsdInfo, keyring: Keyring): Promise<{ replaced: boolean }> {
  const row = {
    merchant_id: merchantId,
    mode: upload.mode,
    certificate_der: upload.cer,
    // Bound to the merchant (GCM associated data): a ciphertext moved to another row does not decrypt.
    private_key_encrypted: encrypt(upload.key, keyring, boundTo.csdKey(merchantId)),
    password_encrypted: encrypt(Buffer.from(upload.password, 'utf8'), keyring, boundTo.csdPassword(merchantId)),
    certificate_number: csd.certificateNumber,
    rfc: csd.rfc,
    valid_from: csd.validFrom,
    valid_to: csd.validTo,
    cer_file_name: upload.cerFileName,
    key_file_name: upload.keyFileName,
    serial_number_prefix: upload.serialNumberPrefix,
    business_code: upload.businessCode,
    updated_at: new Date(),
    expiry_notified_at: null,
  };
  // xmax = 0 only for a freshly inserted row: tells insert from update without a second query.
  const [result] = (await db('merchant_csds').insert(row).onConflict('merchant_id').merge().returning(db.raw('(xmax <> 0) AS replaced'))) as { replaced: boolean }[];
  return { replaced: result?.replaced ?? false };
}

export async function findCsdSummary(db: Db | Trx, merchantId: string): Promise<CsdSummaryRow | undefined> {
  return (await db('merchant_csds')
    .where({ merchant_id: merchantId })
    .first('merchant_id', 'cer_file_name', 'key_file_name', 'serial_number_prefix', 'business_code', 'certificate_number', 'rfc', 'valid_from', 'valid_to', 'mode')) as
    CsdSummaryRow | undefined;
}

export interface CsdMaterial {
  certificateDer: Buffer;
  privateKeyDer: Buffer;
  password: string;
  /** Changes whenever the CSD is replaced: a cached signer is reopened then. */
  updatedAt: Date;
}

/** The merchant's CSD decrypted for sealing (workers only; never logged, never returned by the API). */
/** Read for every stamp (the signer is kept while `updated_at` stays): a prepared statement. */
const CSD_MATERIAL: PreparedStatement = {
  name: 'csd_material_v1',
  text: 'SELECT certificate_der, private_key_encrypted, password_encrypted, updated_at FROM merchant_csds WHERE merchant_id = $1',
};

export async function loadCsdMaterial(db: Db, merchantId: string, keyring: Keyring): Promise<CsdMaterial | undefined> {
  const [row] = await runPrepared<{ certificate_der: Buffer; private_key_encrypted: Buffer; password_encrypted: Buffer; updated_at: Date }>(db, CSD_MATERIAL, [merchantId]);
  if (!row) return undefined;
  return {
    certificateDer: row.certificate_der,
    privateKeyDer: decrypt(row.private_key_encrypted, keyring, boundTo.csdKey(merchantId)),
    password: decrypt(row.password_encrypted, keyring, boundTo.csdPassword(merchantId)).toString('utf8'),
    updatedAt: row.updated_at,
  };
}

export const CSD_EXPIRY_NOTICE_DAYS = 30;

/**
 * Marks the CSDs that expire within 30 days and were not announced yet, and writes their `csd.expiring`
 * events in the same transaction: each CSD is announced once (a replaced CSD can be announced again).
 */
export async function announceExpiringCsds(db: Db, now: Date = new Date()): Promise<number> {
  return db.transaction(async (trx) => {
    const rows = (await trx('merchant_csds')
      .whereNull('expiry_notified_at')
      .where('valid_to', '<=', new Date(now.getTime() + CSD_EXPIRY_NOTICE_DAYS * 86_400_000))
      .update({ expiry_notified_at: trx.fn.now() }, ['merchant_id', 'certificate_number', 'valid_to'])) as { merchant_id: string; certificate_number: string; valid_to: Date }[];
    await emitEvents(
      trx,
      'csd.expiring',
      rows.map((r) => ({
        merchantId: r.merchant_id,
        data: {
          merchant_id: r.merchant_id,
          certificate_number: r.certificate_number,
          valid_to: r.valid_to.toISOString(),
          days_left: Math.max(0, Math.floor((r.valid_to.getTime() - now.getTime()) / 86_400_000)),
        },
      })),
    );
    return rows.length;
  });
}
