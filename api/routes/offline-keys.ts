import { AppError } from '../../shared/platform/errors.js';
import { encryptionKeyring } from '../../shared/platform/crypto/encrypt-at-rest.js';
import { newOfflineKey, offlineCredential } from '../../shared/offline/offline-key.js';
import { findOfflineKey, insertOfflineKey, listOfflineKeys, revokeOfflineKey, type OfflineKeyRow } from '../../shared/repositories/offline-keys.js';
import { createOfflineKeySchema, OFFLINE_CLAIM_LIST_MAX, OFFLINE_KEY_LIMITS, revokeOfflineKeySchema, type OfflineKeyCreated } from '../contract/offline/offline-key-schema.js';
import { offlineClaimSummaryView, offlineKeyView } from '../contract/offline/offline-key-view.js';
import { listClaims } from '../../shared/repositories/offline-claims.js';
import { accountMerchant, MERCHANT_REFUSALS } from '../account-resources.js';
import { bearerRule } from '../access/access-rules.js';
import type { AppContext } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { errorResponse, json } from '../routing/openapi-parts.js';
import { jsonRequest } from '../routing/request-body.js';
import { defineRoute } from '../routing/route.js';
import type { Db } from '../../shared/platform/db.js';

const PATH = '/v1/qrs/merchants/{merchantId}/offline-keys';
const created = { description: 'The key (`offlineKey`), shown once (Cache-Control: no-store), with the link base its tickets use', content: json('OfflineKeyCreated') };
const revokeBody = { required: true, content: json('RevokeOfflineKeyRequest') };
const KEY_REFUSALS = {
  ...MERCHANT_REFUSALS,
  404: errorResponse('Merchant not in the account, or offline_key_not_found'),
  409: errorResponse('offline_key_revoked: the key was already revoked'),
};

async function createdKey(deps: ApiDeps, db: Db, merchantId: string, terms: { windowHours: number; currency: string }): Promise<OfflineKeyCreated> {
  const key = newOfflineKey();
  const row = await insertOfflineKey(db, merchantId, key, terms, encryptionKeyring(deps.config));
  return { ...offlineKeyView(row), offlineKey: offlineCredential(key), linkBaseUrl: deps.config.publicBaseUrl };
}

function answerCreated(ctx: AppContext, view: OfflineKeyCreated): void {
  ctx.status = 201;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = view;
}

async function liveKey(deps: ApiDeps, ctx: { params: { keyId: string } }, merchantId: string): Promise<OfflineKeyRow> {
  const row = await findOfflineKey(deps.db, merchantId, ctx.params.keyId);
  if (!row) throw new AppError(404, 'offline_key_not_found', `No offline key ${ctx.params.keyId} for this merchant.`);
  if (row.revoked_at) throw new AppError(409, 'offline_key_revoked', `The offline key ${row.id} was already revoked on ${row.revoked_at.toISOString()}.`);
  return row;
}

/**
 * /v1/qrs/merchants/{merchantId}/offline-keys (issue #33): the keys a store's point of sale signs its offline
 * tickets with. Created and rotated keys are shown once; a rotation revokes the old key in the same
 * transaction, with the grace the merchant chose for the tickets it already signed.
 */
export const offlineKeyRoutes = [
  defineRoute({
    method: 'post',
    path: PATH,
    access: bearerRule,
    body: jsonRequest(createOfflineKeySchema),
    operationId: 'createOfflineKey',
    summary: "Issue an offline key for the store's point of sale (signs tickets made while it cannot reach the service)",
    requestBody: { required: true, content: json('CreateOfflineKeyRequest') },
    responses: { 201: created, 400: errorResponse('Invalid fields'), ...MERCHANT_REFUSALS },
    handle: (deps) => async (ctx) => {
      const merchant = await accountMerchant(deps, ctx);
      const { windowHours = OFFLINE_KEY_LIMITS.defaultWindowHours, currency = 'MXN' } = ctx.state.body;
      if (deps.catalogs.currencyDecimals(currency) === undefined || currency === 'XXX') {
        throw new AppError(400, 'validation_failed', 'The request has invalid or missing fields.', {
          details: [{ field: 'currency', code: 'not_in_catalog', message: `${currency} is not a currency of SAT's c_Moneda a sale can be in.` }],
        });
      }
      answerCreated(ctx, await createdKey(deps, deps.db, merchant.id, { windowHours, currency }));
    },
  }),
  defineRoute({
    method: 'get',
    path: PATH,
    access: bearerRule,
    operationId: 'listOfflineKeys',
    summary: "The store's offline keys, newest first, without their secrets",
    responses: { 200: { description: 'The keys', content: json('OfflineKeyList') }, ...MERCHANT_REFUSALS },
    handle: (deps) => async (ctx) => {
      const merchant = await accountMerchant(deps, ctx);
      ctx.body = { content: (await listOfflineKeys(deps.db, merchant.id)).map(offlineKeyView) };
    },
  }),
  defineRoute({
    method: 'post',
    path: `${PATH}/{keyId}/rotate`,
    access: bearerRule,
    body: jsonRequest(revokeOfflineKeySchema),
    operationId: 'rotateOfflineKey',
    summary: 'Replace an offline key: the new one is shown once; the old one refuses tickets sold from now on at once, and older ones after `graceHours`',
    requestBody: revokeBody,
    responses: { 201: created, 400: errorResponse('Invalid fields'), ...KEY_REFUSALS },
    handle: (deps) => async (ctx) => {
      const merchant = await accountMerchant(deps, ctx);
      const { graceHours = OFFLINE_KEY_LIMITS.defaultGraceHours } = ctx.state.body;
      const old = await liveKey(deps, ctx, merchant.id);
      const view = await deps.db.transaction(async (trx) => {
        const fresh = await createdKey(deps, trx, merchant.id, { windowHours: old.window_hours, currency: old.currency });
        // Two rotations at once: the second finds the key revoked and rolls back its new key.
        if (!(await revokeOfflineKey(trx, merchant.id, old.id, graceHours, fresh.keyId)))
          throw new AppError(409, 'offline_key_revoked', `The offline key ${old.id} was already revoked.`);
        return fresh;
      });
      answerCreated(ctx, view);
    },
  }),
  defineRoute({
    method: 'post',
    path: `${PATH}/{keyId}/revoke`,
    access: bearerRule,
    body: jsonRequest(revokeOfflineKeySchema),
    operationId: 'revokeOfflineKey',
    summary: 'Revoke an offline key: tickets sold from now on are refused at once, older ones after `graceHours` (0: at once)',
    requestBody: revokeBody,
    responses: { 200: { description: 'The revoked key with its terms', content: json('OfflineKey') }, 400: errorResponse('Invalid fields'), ...KEY_REFUSALS },
    handle: (deps) => async (ctx) => {
      const merchant = await accountMerchant(deps, ctx);
      const { graceHours = OFFLINE_KEY_LIMITS.defaultGraceHours } = ctx.state.body;
      await liveKey(deps, ctx, merchant.id);
      const row = await revokeOfflineKey(deps.db, merchant.id, ctx.params.keyId, graceHours);
      if (!row) throw new AppError(409, 'offline_key_revoked', `The offline key ${ctx.params.keyId} was already revoked.`);
      ctx.body = offlineKeyView(row);
    },
  }),
];

const CLAIM_STATUSES = ['WAITING', 'CONFIRMED', 'REFUSED'] as const;

/**
 * GET /v1/qrs/merchants/{merchantId}/offline-claims?status=WAITING: the offline tickets buyers scanned and
 * left their data on, whose sale the store has not posted yet (or, with `status`, what became of them). The
 * service knows a ticket only once a buyer scans it or its sale arrives: tickets nobody scanned are not here.
 */
export const offlineClaimRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/qrs/merchants/{merchantId}/offline-claims',
    access: bearerRule,
    operationId: 'listOfflineClaims',
    summary:
      'Offline tickets buyers scanned and left their data on, whose sale the store has not posted yet (`status=WAITING`, the default, most urgent first), or what became of them',
    parameters: [{ name: 'status', in: 'query', required: false, schema: { type: 'string', enum: ['WAITING', 'CONFIRMED', 'REFUSED'], default: 'WAITING' } }],
    responses: { 200: { description: "The claims, without the buyers' data", content: json('OfflineClaimList') }, 400: errorResponse('Bad status'), ...MERCHANT_REFUSALS },
    handle: (deps) => async (ctx) => {
      const merchant = await accountMerchant(deps, ctx);
      const asked = ctx.query.status ?? 'WAITING';
      const status = CLAIM_STATUSES.find((s) => s === asked);
      if (!status) {
        throw new AppError(400, 'validation_failed', 'The request has invalid or missing fields.', {
          details: [{ field: 'status', code: 'invalid_value', message: `status must be one of ${CLAIM_STATUSES.join(', ')}.` }],
        });
      }
      ctx.body = { content: (await listClaims(deps.db, merchant.id, status, OFFLINE_CLAIM_LIST_MAX)).map(offlineClaimSummaryView) };
    },
  }),
];
