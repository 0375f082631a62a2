import { readFileSync } from 'node:fs';
import type { Config } from '../shared/platform/config.js';
import { encryptionKeyring } from '../shared/platform/crypto/encrypt-at-rest.js';
import { issueSecret } from '../shared/platform/crypto/secret-token.js';
import { readCsd } from '../shared/csd/read-csd.js';
import type { Db, Trx } from '../shared/platform/db.js';
import { newId } from '../shared/platform/ids.js';
import { findCsdSummary, saveMerchantCsd } from '../shared/repositories/merchant-csds.js';
import { createAccessToken } from '../shared/repositories/access-tokens.js';
import { createApiKey } from '../shared/repositories/api-keys.js';

/** SAT's public test taxpayer and its test CSD (data/sat/test-csd). */
const TEST_ISSUER = { rfc: 'EKU9003173C9', name: 'ESCUELA KEMPER URGATE', regime: '601', zip: '42501', idCif: '00000000000' };
const TEST_CSD_DIR = new URL('../data/sat/test-csd/', import.meta.url);
const TEST_CSD_PASSWORD = '12345678a';
const STORE_UID = 'dev-store-1';

export interface BootstrapResult {
  accountId: string;
  clientId: string;
  /** Only when the account was created by this run: secrets are stored hashed and never shown again. */
  clientSecret: string | null;
  accessToken: string;
  accessTokenExpiresAt: string;
  groupId: string;
  issuerId: string;
  merchantId: string;
  storeUid: string;
  apiKey: string;
  mode: 'development';
}

async function findOrInsert(trx: Trx, table: string, where: Record<string, unknown>, insert: () => Record<string, unknown>): Promise<{ id: string; created: boolean }> {
  const found = (await trx(table).where(where).first('id')) as { id: string } | undefined;
  if (found) return { id: found.id, created: false };
  const row = insert();
  await trx(table).insert(row);
  return { id: String(row.id), created: true };
}

/**
 * Creates (or reuses) a development account with everything needed to call POST /v1/qrs.
 * Each run issues a fresh access token and a fresh development API key; earlier keys keep working
 * (regenerating the merchant's key is what revokes them).
 */
export async function bootstrapAccount(db: Db, config: Readonly<Config>, name: string): Promise<BootstrapResult> {
  const cer = readFileSync(new URL('EKU9003173C9.cer', TEST_CSD_DIR));
  const key = readFileSync(new URL('EKU9003173C9.key', TEST_CSD_DIR));
  const csd = readCsd(cer, key, TEST_CSD_PASSWORD);
  const keyring = encryptionKeyring(config);

  return db.transaction(async (trx) => {
    let clientSecret: string | null = null;
    let clientId = '';
    const account = await findOrInsert(trx, 'accounts', { name }, () => {
      const secret = issueSecret('cs');
      clientSecret = secret.secret;
      clientId = `cli_${newId('account').slice(4)}`;
      return { id: newId('account'), name, client_id: clientId, client_secret_hash: secret.hash };
    });
    if (!account.created) clientId = ((await trx('accounts').where({ id: account.id }).first('client_id')) as { client_id: string }).client_id;

    const group = await findOrInsert(trx, 'groups', { account_id: account.id, name: 'default' }, () => ({ id: newId('group'), account_id: account.id, name: 'default' }));
    const issuer = await findOrInsert(trx, 'issuers', { group_id: group.id, rfc: TEST_ISSUER.rfc }, () => ({
      id: newId('issuer'),
      account_id: account.id,
      group_id: group.id,
      alias: 'Escuela Kemper (pruebas SAT)',
      rfc: TEST_ISSUER.rfc,
      id_cif: TEST_ISSUER.idCif,
      business_name: TEST_ISSUER.name,
      email: 'facturacion@example.com',
      zip: TEST_ISSUER.zip,
      tax_regime_code: TEST_ISSUER.regime,
      status: 'ACTIVE',
    }));
    const merchant = await findOrInsert(trx, 'merchants', { account_id: account.id, external_merchant_id: STORE_UID }, () => ({
      id: newId('merchant'),
      account_id: account.id,
      issuer_id: issuer.id,
      external_merchant_id: STORE_UID,
      name: 'Tienda de pruebas 1',
      billing_profile: 'GENERAL',
      contact_email: 'tienda@example.com',
      contact_phone_number: '5555555555',
      address: JSON.stringify({
        street: 'Av. Reforma',
        exteriorNumber: '1',
        interiorNumber: null,
        neighborhood: 'Centro',
        city: 'Pachuca',
        state: 'Hidalgo',
        zipCode: TEST_ISSUER.zip,
      }),
      status: 'ACTIVE',
    }));
    await trx('merchants').where({ id: merchant.id }).update({ status: 'ACTIVE', updated_at: trx.fn.now() });
    if (!(await findCsdSummary(trx, merchant.id))) {
      await saveMerchantCsd(
        trx,
        merchant.id,
        {
          cer,
          key,
          password: TEST_CSD_PASSWORD,
          cerFileName: 'EKU9003173C9.cer',
          keyFileName: 'EKU9003173C9.key',
          serialNumberPrefix: 'DEV',
          businessCode: STORE_UID,
          mode: 'development',
        },
        csd,
        keyring,
      );
    }

    const token = await createAccessToken(trx, account.id, config.accessTokenTtlSeconds);
    const apiKey = await createApiKey(trx, merchant.id, 'development');
    return {
      accountId: account.id,
      clientId,
      clientSecret,
      accessToken: token.token,
      accessTokenExpiresAt: token.expiresAt.toISOString(),
      groupId: group.id,
      issuerId: issuer.id,
      merchantId: merchant.id,
      storeUid: STORE_UID,
      apiKey,
      mode: 'development',
    };
  });
}
