import type { Db, Trx } from '../db.js';
import type { CsdInfo } from '../csd/read-csd.js';
import { decrypt, encrypt } from '../crypto/encrypt-at-rest.js';
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
export async function saveMerchantCsd(db: Db | Trx, merchantId: string, upload: CsdUpload, csd: CsdInfo, encryptionKey: Buffer): Promise<{ replaced: boolean }> {
  const row = {
    merchant_id: merchantId, mode: upload.mode, certificate_der: upload.cer,
    private_key_encrypted: encrypt(upload.key, encryptionKey), password_encrypted: encrypt(Buffer.from(upload.password, 'utf8'), encryptionKey),
    certificate_number: csd.certificateNumber, rfc: csd.rfc, valid_from: csd.validFrom, valid_to: csd.validTo,
    cer_file_name: upload.cerFileName, key_file_name: upload.keyFileName, serial_number_prefix: upload.serialNumberPrefix,
    business_code: upload.businessCode, updated_at: new Date(),
  };
  // xmax = 0 only for a freshly inserted row: tells insert from update without a second query.
  const [result] = (await db('merchant_csds').insert(row).onConflict('merchant_id').merge().returning(db.raw('(xmax <> 0) AS replaced'))) as { replaced: boolean }[];
  return { replaced: result?.replaced ?? false };
}

export async function findCsdSummary(db: Db | Trx, merchantId: string): Promise<CsdSummaryRow | undefined> {
  return (await db('merchant_csds').where({ merchant_id: merchantId }).first(
    'merchant_id', 'cer_file_name', 'key_file_name', 'serial_number_prefix', 'business_code', 'certificate_number', 'rfc', 'valid_from', 'valid_to', 'mode',
  )) as CsdSummaryRow | undefined;
}

export interface CsdMaterial {
  certificateDer: Buffer;
  privateKeyDer: Buffer;
  password: string;
  /** Changes whenever the CSD is replaced: a cached signer is reopened then. */
  updatedAt: Date;
}

/** The merchant's CSD decrypted for sealing (workers only; never logged, never returned by the API). */
export async function loadCsdMaterial(db: Db, merchantId: string, encryptionKey: Buffer): Promise<CsdMaterial | undefined> {
  const row = (await db('merchant_csds').where({ merchant_id: merchantId }).first(
    'certificate_der', 'private_key_encrypted', 'password_encrypted', 'updated_at',
  )) as { certificate_der: Buffer; private_key_encrypted: Buffer; password_encrypted: Buffer; updated_at: Date } | undefined;
  if (!row) return undefined;
  return {
    certificateDer: row.certificate_der,
    privateKeyDer: decrypt(row.private_key_encrypted, encryptionKey),
    password: decrypt(row.password_encrypted, encryptionKey).toString('utf8'),
    updatedAt: row.updated_at,
  };
}
