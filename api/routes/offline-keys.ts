import type { Router } from '@koa/router';
import { AppError } from '../../shared/platform/errors.js';
import { encryptionKeyring } from '../../shared/platform/crypto/encrypt-at-rest.js';
import { validator } from '../../shared/platform/validation/ajv.js';
import { newOfflineKey, offlineCredential } from '../../shared/offline/offline-key.js';
import { findOfflineKey, insertOfflineKey, listOfflineKeys, revokeOfflineKey, type OfflineKeyRow } from '../../shared/repositories/offline-keys.js';
import { createOfflineKeySchema, OFFLINE_CLAIM_LIST_MAX, OFFLINE_KEY_LIMITS, revokeOfflineKeySchema, type OfflineKeyCreated } from '../contract/offline/offline-key-schema.js';
import { offlineClaimSummaryView, offlineKeyView } from '../contract/offline/offline-key-view.js';
import { listClaims } from '../../shared/repositories/offline-claims.js';
import { accountMerchant } from '../account-resources.js';
import { managementAccess } from '../access/management-access.js';
import { apiRouter, routesWith } from '../routing/api-router.js';
import { jsonBody } from '../middleware/json-body.js';
import type { AppContext, AppState } from '../context.js';
import type { ApiDeps } from '../deps.js';
import type { Db } from '../../shared/platform/db.js';

const validateCreate = validator(createOfflineKeySchema);
const validateRevoke = validator(revokeOfflineKeySchema);

function offlineKeyNotFound(keyId: string | undefined): AppError {
  return new AppError(404, 'offline_key_not_found', `No offline key ${keyId ?? ''} for this merchant.`);
}

/**
 * /v1/qrs/merchants/{merchantId}/offline-keys (issue #33): the keys a store's point of sale signs its offline
 * tickets with. Created and rotated keys are shown once; a rotation revokes the old key in the same
 * transaction, with the grace the merchant chose for the tickets it already signed.
 */
export function offlineKeyRoutes(deps: ApiDeps): Router<AppState> {
  const router = apiRouter('/v1/qrs/merchants/:merchantId/offline-keys');
  const routes = routesWith(router, managementAccess(deps).bearer);
  const body = jsonBody(deps.config.jsonBodyLimit);
  const keyring = encryptionKeyring(deps.config);

  const created = async (db: Db, merchantId: string, terms: { windowHours: number; currency: string }): Promise<OfflineKeyCreated> => {
    const key = newOfflineKey();
    const row = await insertOfflineKey(db, merchantId, key, terms, keyring);
    return { ...offlineKeyView(row), offlineKey: offlineCredential(key), linkBaseUrl: deps.config.publicBaseUrl };
  };
  const answerCreated = (ctx: AppContext, view: OfflineKeyCreated) => {
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = view;
  };
  const liveKey = async (ctx: AppContext, merchantId: string): Promise<OfflineKeyRow> => {
    const row = await findOfflineKey(deps.db, merchantId, ctx.params.keyId ?? '');
    if (!row) throw offlineKeyNotFound(ctx.params.keyId);
    if (row.revoked_at) throw new AppError(409, 'offline_key_revoked', `The offline key ${row.id} was already revoked on ${row.revoked_at.toISOString()}.`);
    return row;
  };

  routes.post('/', body, async (ctx) => {
    const merchant = await accountMerchant(deps, ctx);
    const { windowHours = OFFLINE_KEY_LIMITS.defaultWindowHours, currency = 'MXN' } = validateCreate(ctx.request.body);
    if (deps.catalogs.currencyDecimals(currency) === undefined || currency === 'XXX') {
      throw new AppError(400, 'validation_failed', 'The request has invalid or missing fields.', {
        details: [{ field: 'currency', code: 'not_in_catalog', message: `${currency} is not a currency of SAT's c_Moneda a sale can be in.` }],
      });
    }
    answerCreated(ctx, await created(deps.db, merchant.id, { windowHours, currency }));
  });

  routes.get('/', async (ctx) => {
    const merchant = await accountMerchant(deps, ctx);
    ctx.body = { content: (await listOfflineKeys(deps.db, merchant.id)).map(offlineKeyView) };
  });

  routes.post('/:keyId/rotate', body, async (ctx) => {
    const merchant = await accountMerchant(deps, ctx);
    const { graceHours = OFFLINE_KEY_LIMITS.defaultGraceHours } = validateRevoke(ctx.request.body);
    const old = await liveKey(ctx, merchant.id);
    const view = await deps.db.transaction(async (trx) => {
      const fresh = await created(trx, merchant.id, { windowHours: old.window_hours, currency: old.currency });
      // Two rotations at once: the second finds the key revoked and rolls back its new key.
      if (!(await revokeOfflineKey(trx, merchant.id, old.id, graceHours, fresh.keyId)))
        throw new AppError(409, 'offline_key_revoked', `The offline key ${old.id} was already revoked.`);
      return fresh;
    });
    answerCreated(ctx, view);
  });

  routes.post('/:keyId/revoke', body, async (ctx) => {
    const merchant = await accountMerchant(deps, ctx);
    const { graceHours = OFFLINE_KEY_LIMITS.defaultGraceHours } = validateRevoke(ctx.request.body);
    await liveKey(ctx, merchant.id);
    const row = await revokeOfflineKey(deps.db, merchant.id, ctx.params.keyId ?? '', graceHours);
    if (!row) throw new AppError(409, 'offline_key_revoked', `The offline key ${ctx.params.keyId ?? ''} was already revoked.`);
    ctx.body = offlineKeyView(row);
  });

  return router;
}

const CLAIM_STATUSES = ['WAITING', 'CONFIRMED', 'REFUSED'] as const;

/**
 * GET /v1/qrs/merchants/{merchantId}/offline-claims?status=WAITING: the offline tickets buyers scanned and
 * left their data on, whose sale the store has not posted yet (or, with `status`, what became of them). The
 * service knows a ticket only once a buyer scans it or its sale arrives: tickets nobody scanned are not here.
 */
export function offlineClaimRoutes(deps: ApiDeps): Router<AppState> {
  const router = apiRouter('/v1/qrs/merchants/:merchantId/offline-claims');
  const routes = routesWith(router, managementAccess(deps).bearer);
  routes.get('/', async (ctx) => {
    const merchant = await accountMerchant(deps, ctx);
    const asked = ctx.query.status ?? 'WAITING';
    const status = CLAIM_STATUSES.find((s) => s === asked);
    if (!status) {
      throw new AppError(400, 'validation_failed', 'The request has invalid or missing fields.', {
        details: [{ field: 'status', code: 'invalid_value', message: `status must be one of ${CLAIM_STATUSES.join(', ')}.` }],
      });
    }
    ctx.body = { content: (await listClaims(deps.db, merchant.id, status, OFFLINE_CLAIM_LIST_MAX)).map(offlineClaimSummaryView) };
  });
  return router;
}
