import type { Db } from '../platform/db.js';
import { boundTo, decrypt, encrypt, type Keyring } from '../platform/crypto/encrypt-at-rest.js';
import type { OfflineKeyMaterial } from '../offline/offline-key.js';
import type { OfflineKeyState } from '../offline/offline-ticket-check.js';

export interface OfflineKeyRow {
  id: string;
  merchant_id: string;
  secret_encrypted: Buffer;
  window_hours: number;
  /** Its tickets' currency (issue #39). */
  currency: string;
  created_at: Date;
  revoked_at: Date | null;
  old_tickets_until: Date | null;
  replaced_by: string | null;
}

export async function insertOfflineKey(
  db: Db,
  merchantId: string,
  key: OfflineKeyMaterial,
  terms: { windowHours: number; currency: string },
  keyring: Keyring,
): Promise<OfflineKeyRow> {
  const [row] = (await db('offline_keys')
    .insert({
      id: key.keyId,
      merchant_id: merchantId,
      secret_encrypted: encrypt(key.secret, keyring, boundTo.offlineKey(key.keyId)),
      window_hours: terms.windowHours,
      currency: terms.currency,
    })
    .returning('*')) as OfflineKeyRow[];
  return row!;
}

/** Newest first; a merchant has a handful (one per rotation). */
export async function listOfflineKeys(db: Db, merchantId: string): Promise<OfflineKeyRow[]> {
  return (await db('offline_keys')
    .where({ merchant_id: merchantId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])) as OfflineKeyRow[];
}

export async function findOfflineKey(db: Db, merchantId: string, keyId: string): Promise<OfflineKeyRow | undefined> {
  return (await db('offline_keys').where({ merchant_id: merchantId, id: keyId }).first()) as OfflineKeyRow | undefined;
}

/**
 * Revokes a live key: tickets sold from now on are refused at once, older ones until `oldTicketsUntil`.
 * Undefined when the key was already revoked (the first revocation's terms stand).
 */
export async function revokeOfflineKey(db: Db, merchantId: string, keyId: string, graceHours: number, replacedBy: string | null = null): Promise<OfflineKeyRow | undefined> {
  const [row] = (await db('offline_keys')
    .where({ merchant_id: merchantId, id: keyId })
    .whereNull('revoked_at')
    .update({ revoked_at: db.fn.now(), old_tickets_until: db.raw(`now() + make_interval(hours => ?)`, [graceHours]), replaced_by: replacedBy })
    .returning('*')) as OfflineKeyRow[];
  return row;
}

/** What a ticket is checked against (the secret decrypted), or undefined for an unknown key id. */
export async function loadOfflineKeyState(db: Db, keyId: string, keyring: Keyring): Promise<OfflineKeyState | undefined> {
  const row = (await db('offline_keys').where({ id: keyId }).first()) as OfflineKeyRow | undefined;
  if (!row) return undefined;
  return {
    id: row.id,
    merchantId: row.merchant_id,
    secret: decrypt(row.secret_encrypted, keyring, boundTo.offlineKey(row.id)),
    windowHours: row.window_hours,
    currency: row.currency,
    revokedAt: row.revoked_at,
    oldTicketsUntil: row.old_tickets_until,
  };
}
