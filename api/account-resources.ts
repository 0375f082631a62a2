/**
 * The management routes' not-found answers and the loaders that give them. A resource of another
 * account is as unknown as a missing one: 404, never 403, never data.
 */
import { AppError } from '../shared/platform/errors.js';
import { findIssuer, type IssuerRow } from '../shared/repositories/issuers.js';
import { findMerchant, type MerchantRow } from '../shared/repositories/merchants.js';
import type { BearerGrant } from './access/access-rules.js';
import { errorResponse } from './routing/openapi-parts.js';
import type { ApiDeps } from './deps.js';

const notInAccount = 'It does not exist or belongs to another account.';

export function groupNotFound(groupId: string): AppError {
  return new AppError(404, 'group_not_found', `No group ${groupId} in this account.`, {
    details: [{ field: 'groupId', code: 'not_found', message: notInAccount }],
  });
}

/** `field`: the body or query field that named the issuer, when it was not the path. */
export function issuerNotFound(issuerId: string | undefined, field?: string): AppError {
  return new AppError(404, 'issuer_not_found', `No issuer ${issuerId ?? ''} in this account.`, {
    details: field ? [{ field, code: 'not_found', message: notInAccount }] : [],
  });
}

export function merchantNotFound(merchantId: string | undefined): AppError {
  return new AppError(404, 'merchant_not_found', `No merchant ${merchantId ?? ''} in this account.`);
}

/** The issuer named by the `:issuerId` path parameter, in the token's account. */
export async function accountIssuer(deps: ApiDeps, ctx: { state: BearerGrant; params: { issuerId: string } }): Promise<IssuerRow> {
  const row = await findIssuer(deps.db, ctx.state.accountId, ctx.params.issuerId);
  if (!row) throw issuerNotFound(ctx.params.issuerId);
  return row;
}

/** The merchant named by the `:merchantId` path parameter, in the token's account. */
export async function accountMerchant(deps: ApiDeps, ctx: { state: BearerGrant; params: { merchantId: string } }): Promise<MerchantRow> {
  const row = await findMerchant(deps.db, ctx.state.accountId, ctx.params.merchantId);
  if (!row) throw merchantNotFound(ctx.params.merchantId);
  return row;
}

/** What every route under /v1/qrs/merchants documents: its refusals for a bad token and a merchant not in the account. */
export const MERCHANT_REFUSALS = { 401: errorResponse('Token invalid, expired or revoked'), 404: errorResponse('Merchant (or issuer) not in the account') };
