import { randomBytes } from 'node:crypto';
import { containsPattern, type Db, type Trx } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import type { Address, BillingProfile, LogoAnimation, MerchantFields, MerchantStatus } from '../merchants/merchant.js';
import type { PageRequest } from '../platform/pagination.js';

export interface MerchantRow {
  id: string;
  account_id: string;
  issuer_id: string;
  external_merchant_id: string;
  name: string;
  billing_profile: BillingProfile;
  billing_profile_data: Record<string, unknown> | null;
  contact_email: string | null;
  contact_phone_number: string | null;
  address: Address | null;
  logo_animation: LogoAnimation;
  status: MerchantStatus;
  allow_generic_rfc: boolean;
  allowed_cfdi_uses: string[] | null;
  resico_withholding: boolean;
  invoice_logo_url: string | null;
  invoice_logo_file_name: string | null;
  app_logo_url: string | null;
  app_logo_file_name: string | null;
  created_at: Date;
  updated_at: Date;
}

// jsonb columns go in as JSON text.
const json = (value: unknown) => (value === undefined ? undefined : value === null ? null : JSON.stringify(value));

function columns(fields: Partial<MerchantFields>) {
  const out: Record<string, unknown> = {
    name: fields.merchantName,
    billing_profile: fields.billingProfile,
    billing_profile_data: json(fields.billingProfileData),
    contact_email: fields.contactEmail,
    contact_phone_number: fields.contactPhoneNumber,
    address: json(fields.address),
    status: fields.status,
    allow_generic_rfc: fields.invoiceRules?.allowGenericRfc,
    allowed_cfdi_uses: fields.invoiceRules?.allowedCfdiUses,
    resico_withholding: fields.invoiceRules?.resicoWithholding,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

/** The store code POS backends send as store_uid: short, unambiguous, unique per account. */
function newStoreCode(): string {
  return `store-${randomBytes(5).toString('hex')}`;
}

export async function insertMerchant(db: Db, accountId: string, issuerId: string, fields: MerchantFields): Promise<MerchantRow> {
  const [row] = (await db('merchants')
    .insert({ id: newId('merchant'), account_id: accountId, issuer_id: issuerId, external_merchant_id: newStoreCode(), status: 'ACTIVE', ...columns(fields) })
    .returning('*')) as MerchantRow[];
  if (!row) throw new Error('merchant insert returned nothing');
  return row;
}

export async function findMerchant(db: Db, accountId: string, merchantId: string): Promise<MerchantRow | undefined> {
  return (await db('merchants').where({ id: merchantId, account_id: accountId }).first()) as MerchantRow | undefined;
}

/** Applies the given fields; undefined when the merchant is not the account's. */
export async function updateMerchant(
  db: Db,
  accountId: string,
  merchantId: string,
  fields: Partial<MerchantFields> & { logoAnimation?: LogoAnimation },
): Promise<MerchantRow | undefined> {
  const [row] = (await db('merchants')
    .where({ id: merchantId, account_id: accountId })
    .update({ ...columns(fields), ...(fields.logoAnimation ? { logo_animation: fields.logoAnimation } : {}), updated_at: db.fn.now() })
    .returning('*')) as MerchantRow[];
  return row;
}

export async function listMerchants(db: Db, accountId: string, issuerId: string, filter: string | undefined, page: PageRequest): Promise<{ rows: MerchantRow[]; total: number }> {
  const base = db('merchants').where({ account_id: accountId, issuer_id: issuerId });
  if (filter) base.andWhereILike('name', containsPattern(filter));
  const [count, rows] = await Promise.all([
    base.clone().count<{ count: string }[]>('* as count'),
    base
      .clone()
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .limit(page.size)
      .offset(page.page * page.size),
  ]);
  return { rows: rows as MerchantRow[], total: Number(count[0]?.count ?? 0) };
}

export interface LogoChanges {
  invoice?: { url: string; fileName: string };
  app?: { url: string; fileName: string };
  logoAnimation?: LogoAnimation;
}

export async function updateMerchantLogos(db: Db | Trx, merchantId: string, changes: LogoChanges): Promise<MerchantRow | undefined> {
  const [row] = (await db('merchants')
    .where({ id: merchantId })
    .update({
      ...(changes.invoice ? { invoice_logo_url: changes.invoice.url, invoice_logo_file_name: changes.invoice.fileName } : {}),
      ...(changes.app ? { app_logo_url: changes.app.url, app_logo_file_name: changes.app.fileName } : {}),
      ...(changes.logoAnimation ? { logo_animation: changes.logoAnimation } : {}),
      updated_at: db.fn.now(),
    })
    .returning('*')) as MerchantRow[];
  return row;
}

/** A store as the operator's status page names it (issue #39). */
export interface StoreMatch {
  id: string;
  name: string;
  external_merchant_id: string;
  rfc: string;
}

/**
 * The stores an operator's words name, across accounts: by merchant id, the POS's store id or the issuer's RFC
 * (exactly), or by a part of the name; exact matches first, at most `limit`.
 */
export async function findStores(db: Db, text: string, limit: number): Promise<StoreMatch[]> {
  return (await db('merchants as m')
    .join('issuers as i', 'i.id', 'm.issuer_id')
    .where((q) => {
      void q.where('m.id', text).orWhere('m.external_merchant_id', text).orWhere('i.rfc', text.toUpperCase()).orWhereILike('m.name', containsPattern(text));
    })
    .orderByRaw('(m.id = ? OR m.external_merchant_id = ? OR i.rfc = ?) DESC, m.name, m.id', [text, text, text.toUpperCase()])
    .limit(limit)
    .select('m.id', 'm.name', 'm.external_merchant_id', 'i.rfc')) as StoreMatch[];
}
