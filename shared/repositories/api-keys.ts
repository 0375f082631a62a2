import { runPrepared, type Db, type PreparedStatement, type Trx } from '../platform/db.js';
import type { GlobalPeriodicity } from '../global-invoice/global-period.js';
import { newId } from '../platform/ids.js';
import { issueSecret, lookupPrefix, secretMatches } from '../platform/crypto/secret-token.js';

export type KeyMode = 'development' | 'production';

const LABEL: Record<KeyMode, string> = { development: 'sk_test', production: 'sk_live' };

/** Who an API key speaks for: its merchant, with what the QR routes need of it, read in one query. */
export interface ApiKeyPrincipal {
  keyId: string;
  mode: KeyMode;
  merchantId: string;
  accountId: string;
  externalMerchantId: string;
  merchantName: string;
  merchantStatus: 'ACTIVE' | 'INACTIVE';
  issuerRfc: string;
  issuerName: string;
  /** c_Periodicidad of the issuer's global invoice: caps each QR's expiry at its period's close. */
  globalPeriodicity: GlobalPeriodicity;
  csdValidTo: Date | null;
}

interface PrincipalRow {
  key_id: string;
  key_hash: Buffer;
  mode: KeyMode;
  merchant_id: string;
  account_id: string;
  external_merchant_id: string;
  name: string;
  status: 'ACTIVE' | 'INACTIVE';
  rfc: string;
  business_name: string;
  global_periodicity: GlobalPeriodicity;
  csd_valid_to: Date | null;
}

/** Every API request runs this, so it is a prepared statement. */
const FIND_PRINCIPAL: PreparedStatement = {
  name: 'api_key_principal_v2',
  text: `SELECT k.id AS key_id, k.key_hash, k.mode, m.id AS merchant_id, m.account_id, m.external_merchant_id,
      m.name, m.status, i.rfc, i.business_name, i.global_periodicity, c.valid_to AS csd_valid_to
    FROM api_keys k
    JOIN merchants m ON m.id = k.merchant_id
    JOIN issuers i ON i.id = m.issuer_id
    LEFT JOIN merchant_csds c ON c.merchant_id = m.id
    WHERE k.prefix = $1 AND k.mode = $2 AND k.revoked_at IS NULL
    LIMIT 1`,
};

/**
 * The merchant behind a presented API key, or undefined for a missing, unknown or revoked key. API processes
 * cache the answer (api/access/principal-cache.ts): whoever writes a column it reads (api_keys; merchants'
 * name, status, store code; issuers' RFC, name, periodicity; merchant_csds.valid_to) calls
 * `principalsChanged` after the commit.
 */
export async function findApiKeyPrincipal(db: Db, presented: string): Promise<ApiKeyPrincipal | undefined> {
  const mode: KeyMode | undefined = presented.startsWith(`${LABEL.production}_`) ? 'production' : presented.startsWith(`${LABEL.development}_`) ? 'development' : undefined;
  if (!mode) return undefined;
  const prefix = lookupPrefix(presented, LABEL[mode]);
  if (!prefix) return undefined;
  const [row] = await runPrepared<PrincipalRow>(db, FIND_PRINCIPAL, [prefix, mode]);
  if (!row || !secretMatches(presented, row.key_hash)) return undefined;
  return {
    keyId: row.key_id,
    mode: row.mode,
    merchantId: row.merchant_id,
    accountId: row.account_id,
    externalMerchantId: row.external_merchant_id,
    merchantName: row.name,
    merchantStatus: row.status,
    issuerRfc: row.rfc,
    issuerName: row.business_name,
    globalPeriodicity: row.global_periodicity,
    csdValidTo: row.csd_valid_to,
  };
}

/** Creates a key and returns its secret, which is never stored and cannot be shown again. */
export async function createApiKey(trx: Db | Trx, merchantId: string, mode: KeyMode): Promise<string> {
  const issued = issueSecret(LABEL[mode]);
  await trx('api_keys').insert({ id: newId('apiKey'), merchant_id: merchantId, mode, prefix: issued.prefix, key_hash: issued.hash });
  return issued.secret;
}

/**
 * Replaces every live key of the merchant in `mode` with a new one, in one transaction. Returns the new
 * secret, shown once. The caller then calls `principalsChanged` (shared/platform/principal-generation.ts):
 * the old keys fail from the next request on in every API process.
 */
export async function regenerateApiKey(db: Db, merchantId: string, mode: KeyMode): Promise<string> {
  return db.transaction(async (trx) => {
    await trx('api_keys').where({ merchant_id: merchantId, mode }).whereNull('revoked_at').update({ revoked_at: trx.fn.now() });
    return createApiKey(trx, merchantId, mode);
  });
}
