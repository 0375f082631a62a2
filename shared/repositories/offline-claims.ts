import type { Db } from '../platform/db.js';
import type { Customer } from '../invoices/customer.js';
import type { InvoiceRules } from '../merchants/merchant.js';
import type { Address } from '../merchants/merchant.js';
import type { ClaimRefusal } from '../offline/claim-refusal.js';

export type { ClaimRefusal };

export type ClaimStatus = 'WAITING' | 'CONFIRMED' | 'REFUSED';

export interface OfflineClaimRow {
  key_id: string;
  sale_id: string;
  merchant_id: string;
  amount: string;
  sold_at: Date;
  closes_at: Date;
  customer: Customer;
  status: ClaimStatus;
  refusal: ClaimRefusal | null;
  invoice_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** What checking a buyer's tax data for a store needs before any sale of it exists. */
export interface ClaimMerchant {
  id: string;
  name: string;
  status: string;
  contactEmail: string | null;
  contactPhone: string | null;
  invoiceRules: Pick<InvoiceRules, 'allowGenericRfc' | 'allowedCfdiUses'>;
  expeditionPlace: string;
  issuerStatus: string;
}

export async function claimMerchant(db: Db, merchantId: string): Promise<ClaimMerchant | undefined> {
  const row = (await db('merchants as m')
    .join('issuers as i', 'i.id', 'm.issuer_id')
    .where('m.id', merchantId)
    .first(
      'm.id',
      'm.name',
      'm.status',
      'm.contact_email',
      'm.contact_phone_number',
      'm.allow_generic_rfc',
      'm.allowed_cfdi_uses',
      'm.address',
      'i.zip',
      'i.status as issuer_status',
    )) as
    | {
        id: string;
        name: string;
        status: string;
        contact_email: string | null;
        contact_phone_number: string | null;
        allow_generic_rfc: boolean;
        allowed_cfdi_uses: string[] | null;
        address: Address | null;
        zip: string;
        issuer_status: string;
      }
    | undefined;
  if (!row) return undefined;
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    contactEmail: row.contact_email,
    contactPhone: row.contact_phone_number,
    invoiceRules: { allowGenericRfc: row.allow_generic_rfc, allowedCfdiUses: row.allowed_cfdi_uses },
    expeditionPlace: row.address?.zipCode ?? row.zip,
    issuerStatus: row.issuer_status,
  };
}

/** What saving a buyer's data on a ticket came to. */
export type SavedClaim = { outcome: 'saved'; claim: OfflineClaimRow } | { outcome: 'held-by-another' } | { outcome: 'settled' };

/**
 * Records the buyer's data for a ticket, or replaces it while it waits when `holderHash` is the first
 * claimant's (a claim from before holders existed is taken over). One statement, so two buyers at once
 * cannot both hold it: the second finds the first's row and its holder.
 */
export async function saveClaim(
  db: Db,
  claim: Pick<OfflineClaimRow, 'key_id' | 'sale_id' | 'merchant_id' | 'amount' | 'sold_at' | 'closes_at' | 'customer'>,
  holderHash: Buffer,
): Promise<SavedClaim> {
  const row = { ...claim, customer: JSON.stringify(claim.customer), holder_hash: holderHash };
  const [saved] = (await db('offline_claims')
    .insert(row)
    .onConflict(['key_id', 'sale_id'])
    .merge({ customer: row.customer, holder_hash: holderHash, updated_at: db.fn.now() })
    .where('offline_claims.status', 'WAITING')
    .where(function () {
      void this.whereNull('offline_claims.holder_hash').orWhere('offline_claims.holder_hash', holderHash);
    })
    .returning('*')) as OfflineClaimRow[];
  if (saved) return { outcome: 'saved', claim: saved };
  const existing = await findClaim(db, claim.key_id, claim.sale_id);
  return existing?.status === 'WAITING' ? { outcome: 'held-by-another' } : { outcome: 'settled' };
}

export async function findClaim(db: Db, keyId: string, saleId: string): Promise<OfflineClaimRow | undefined> {
  return (await db('offline_claims').where({ key_id: keyId, sale_id: saleId }).first()) as OfflineClaimRow | undefined;
}

/** A waiting claim whose sale has arrived, with that sale's id. */
export interface ArrivedClaim {
  claim: OfflineClaimRow;
  transactionId: string;
}

/** Waiting claims whose sale has arrived (of one sale, or any), oldest first. */
export async function arrivedClaims(db: Db, limit: number, transactionId?: string): Promise<ArrivedClaim[]> {
  // The ticket's sale by qr_sale_keys (one per ticket), then its month's partition (issue #41).
  const q = db('offline_claims as c')
    .join('qr_sale_keys as s', function () {
      this.on('s.offline_key_id', 'c.key_id').andOn('s.offline_sale_id', 'c.sale_id');
    })
    .join('qr_transactions as t', function () {
      this.on('t.id', 's.transaction_id').andOn('t.created_at', 's.transaction_created_at');
    })
    .where('c.status', 'WAITING')
    .orderBy('c.created_at')
    .limit(limit)
    .select('c.*', 't.id as transaction_id');
  if (transactionId) void q.where('t.id', transactionId);
  const rows = (await q) as (OfflineClaimRow & { transaction_id: string })[];
  return rows.map(({ transaction_id, ...claim }) => ({ claim, transactionId: transaction_id }));
}

/** Waiting claims past their ticket's window with no sale: they can no longer be invoiced. */
export async function closedClaims(db: Db, now: Date, limit: number): Promise<OfflineClaimRow[]> {
  return (await db('offline_claims as c')
    .where('c.status', 'WAITING')
    .where('c.closes_at', '<=', now)
    .whereNotExists(function () {
      this.select(1).from('qr_sale_keys as s').whereRaw('s.offline_key_id = c.key_id AND s.offline_sale_id = c.sale_id');
    })
    .orderBy('c.closes_at')
    .limit(limit)
    .select('c.*')) as OfflineClaimRow[];
}

/** Settles a waiting claim; false when another settler got there first. */
export async function settleClaim(
  db: Db,
  claim: Pick<OfflineClaimRow, 'key_id' | 'sale_id'>,
  outcome: { status: 'CONFIRMED'; invoiceId: string } | { status: 'REFUSED'; refusal: ClaimRefusal },
): Promise<boolean> {
  const changed = await db('offline_claims')
    .where({ key_id: claim.key_id, sale_id: claim.sale_id, status: 'WAITING' })
    .update({
      status: outcome.status,
      invoice_id: outcome.status === 'CONFIRMED' ? outcome.invoiceId : null,
      refusal: outcome.status === 'REFUSED' ? outcome.refusal : null,
      updated_at: db.fn.now(),
    });
  return changed === 1;
}

/** A store's claims of one status: WAITING by the moment they close (the most urgent first), the others newest first. */
export async function listClaims(db: Db, merchantId: string, status: ClaimStatus, limit: number): Promise<OfflineClaimRow[]> {
  return (await db('offline_claims')
    .where({ merchant_id: merchantId, status })
    .orderBy(status === 'WAITING' ? [{ column: 'closes_at' }, { column: 'sale_id' }] : [{ column: 'updated_at', order: 'desc' }, { column: 'sale_id' }])
    .limit(limit)) as OfflineClaimRow[];
}

/**
 * Refused claims for the same address (case aside) that came before this one since `since`: whether this
 * one's e-mail is within the address's daily bound (issue #39). An index range (migration 20261128090500).
 */
export async function refusedClaimsToAddressBefore(db: Db, claim: Pick<OfflineClaimRow, 'key_id' | 'sale_id' | 'updated_at' | 'customer'>, since: Date): Promise<number> {
  const [row] = (await db('offline_claims')
    .where('status', 'REFUSED')
    .whereRaw("lower(customer->>'email') = lower(?)", [claim.customer.email])
    .where('updated_at', '>=', since)
    .whereRaw('(updated_at, key_id, sale_id) < (?, ?, ?)', [claim.updated_at, claim.key_id, claim.sale_id])
    .count({ n: '*' })) as { n: string }[];
  return Number(row?.n ?? 0);
}
