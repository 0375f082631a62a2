import { qrTransitions } from '../../shared/platform/metrics/registry.js';
import { AppError, type ErrorDetail } from '../../shared/platform/errors.js';
import { newQrId } from '../../shared/platform/ids.js';
import { requestFingerprint } from '../../shared/platform/idempotency/request-fingerprint.js';
import {
  cacheKeyOf,
  cacheRecord,
  findRecord,
  parseCachedRecord,
  readCachedRecord,
  type CacheScope,
  type IdempotencyRecord,
  type IdempotencyScope,
} from '../../shared/platform/idempotency/idempotency-store.js';
import { expiryBucket, withinPlanWindow } from '../../shared/domain/expiry-buckets.js';
import { scheduleExpiryBuckets } from '../../shared/qr/schedule-expiry-buckets.js';
import type { ApiKeyPrincipal } from '../../shared/repositories/api-keys.js';
import {
  findQrTransaction,
  OFFLINE_TICKET_INDEX,
  qrHoldingSale,
  recordQrTransaction,
  SALE_KEY_INDEX,
  SALE_QR_INDEX,
  SHORT_CODE_INDEX,
  type NewQrTransaction,
} from '../../shared/repositories/qr-transactions.js';
import { buildQrTransactionRecord } from '../../shared/qr/build-qr-transaction.js';
import { checkQrRules } from '../../shared/qr/check-qr-rules.js';
import { qrContent, newQrToken, signQrToken } from '../../shared/qr/qr-link.js';
import { parseQrCreateRequest } from './parse-qr-request.js';
import { newShortCode } from '../../shared/domain/qr-code/short-code.js';
import { resolveConceptKeys, skusToResolve } from '../../shared/qr/resolve-concept-keys.js';
import { productKeysBySku } from '../../shared/repositories/products.js';
import { fixedViewParts, qrTransactionView, type QrTransactionView } from '../contract/qrs/qr-transaction-view.js';
import { findOwnQr, fixedViewCache } from './stored-qr.js';
import { isIanaTimeZone, localDateTime } from '../../shared/domain/time-zone.js';
import { viewContext, type ApiDeps } from '../deps.js';
import { renderQr } from './render-qr.js';
import { crashAfterCommit } from '../../shared/platform/crash-after-commit.js';
import { offlineBinding, ticketAlreadyBound } from './offline-catch-up.js';

const SCOPE = 'qr.create';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface CreateQrInput {
  body: unknown;
  timeZone: string;
  idempotencyKey: string;
  /** The presented API key's id (`ctx.state.presentedKeyId`): names the Redis idempotency cache. */
  presentedKeyId: string;
  /** What the access rule's round trip read (`idempotencyCacheReads`); a key absent is read here. */
  prefetched?: ReadonlyMap<string, string | null>;
}

/**
 * The Redis keys POST /v1/qrs reads before its first statement, in the api-key rule's round trip (one
 * round trip before the insert): the idempotency cache's entry for this key, when the header is one.
 */
export function idempotencyCacheReads(idempotencyKey: string, presentedKeyId: string): string[] {
  return UUID.test(idempotencyKey) ? [cacheKeyOf(cacheScopeOf(idempotencyKey, presentedKeyId))] : [];
}

function cacheScopeOf(idempotencyKey: string, presentedKeyId: string): CacheScope {
  return { holder: presentedKeyId, scope: SCOPE, key: idempotencyKey.toLowerCase() };
}

export interface CreateQrResult {
  view: QrTransactionView;
  replayed: boolean;
}

function checkHeaders(input: CreateQrInput): void {
  const details: ErrorDetail[] = [];
  if (!input.timeZone) details.push({ field: 'X-TIME-ZONE', code: 'required', message: 'X-TIME-ZONE header is required (an IANA time zone such as America/Mexico_City).' });
  else if (!isIanaTimeZone(input.timeZone)) details.push({ field: 'X-TIME-ZONE', code: 'invalid_time_zone', message: `"${input.timeZone}" is not an IANA time zone.` });
  if (!input.idempotencyKey) details.push({ field: 'idempotency-key', code: 'required', message: 'idempotency-key header is required (a UUID).' });
  else if (!UUID.test(input.idempotencyKey)) details.push({ field: 'idempotency-key', code: 'invalid_format', message: 'idempotency-key must be a UUID.' });
  if (details.length > 0) throw new AppError(400, 'validation_failed', 'The request has invalid or missing headers.', { details });
}

/** The key made a sale whose idempotency record has left (IDEMPOTENCY_RETENTION_DAYS): its body can no longer be compared. */
function keyPastItsWindow(): AppError {
  return new AppError(
    409,
    'idempotency_key_reused',
    'This idempotency-key was used for a sale whose idempotency window has passed; a retry is no longer recognized. Use a new key for a new sale.',
  );
}

function reusedKey(): AppError {
  return new AppError(409, 'idempotency_key_reused', 'This idempotency-key was already used with a different request body; use a new key for a new sale.');
}

/** The same body with another X-TIME-ZONE is a different request too (the CFDI's Fecha depends on it): say which. */
function reusedKeyWithOtherTimeZone(stored: string, asked: string): AppError {
  return new AppError(
    409,
    'idempotency_key_reused',
    `This idempotency-key was already used with X-TIME-ZONE ${stored}, not ${asked}; send the same headers to replay it, or use a new key for a new sale.`,
    {
      details: [{ field: 'X-TIME-ZONE', code: 'differs_from_first_request', message: `The first request with this key said ${stored}.` }],
    },
  );
}

async function replay(deps: ApiDeps, principal: ApiKeyPrincipal, record: IdempotencyRecord, fingerprint: string, input: CreateQrInput): Promise<CreateQrResult> {
  if (record.fingerprint !== fingerprint) {
    const first = (await findQrTransaction(deps.db, principal.merchantId, principal.mode, record.resourceId))?.transaction.time_zone;
    if (first && first !== input.timeZone && requestFingerprint(input.body, { 'x-time-zone': first }) === record.fingerprint) {
      throw reusedKeyWithOtherTimeZone(first, input.timeZone);
    }
    throw reusedKey();
  }
  return answerReplay(deps, principal, record);
}

async function answerReplay(deps: ApiDeps, principal: ApiKeyPrincipal, record: IdempotencyRecord): Promise<CreateQrResult> {
  const stored = await findOwnQr(deps.db, principal, record.resourceId);
  if (!stored) throw new AppError(409, 'idempotency_key_reused', 'This idempotency-key belongs to a transaction of another environment.');
  const view = viewContext(deps);
  return { view: qrTransactionView(stored, view, fixedViewCache.parts(stored, view)), replayed: true };
}

function checkMerchant(principal: ApiKeyPrincipal, storeUid: string, now: Date): void {
  if (storeUid !== principal.merchantId && storeUid !== principal.externalMerchantId) {
    // The key's own merchant is no secret to its holder: name the value that works (bootstrap prints it as storeUid).
    const works = `"${principal.externalMerchantId}" (the merchant's externalMerchantId) or "${principal.merchantId}" (its merchantId)`;
    throw new AppError(404, 'store_not_found', `store_uid "${storeUid}" does not name this API key's merchant; send ${works}.`, {
      details: [{ field: 'store_uid', code: 'not_found', message: `Send ${works}.`, expected: principal.externalMerchantId }],
    });
  }
  if (principal.merchantStatus !== 'ACTIVE') throw new AppError(422, 'merchant_inactive', 'The merchant is INACTIVE and cannot generate QRs.');
  if (!principal.csdValidTo) throw new AppError(422, 'csd_not_configured', 'The merchant has no CSD configured; upload it with POST /v1/qrs/merchants/{merchantId}/invoice-mode.');
  if (principal.csdValidTo.getTime() <= now.getTime()) throw new AppError(422, 'csd_expired', "The merchant's CSD has expired; renew it before generating QRs.");
}

/**
 * POST /v1/qrs. A key already used answers its transaction (Redis cache, read with the rate limits, else
 * PostgreSQL); a new key
 * is validated, rendered (worker) and written with its idempotency record in one statement. Nothing is
 * written when any step fails; concurrent requests with one key wait on the key's row and answer the same.
 */
export async function createQr(deps: ApiDeps, principal: ApiKeyPrincipal, input: CreateQrInput, now: Date = new Date()): Promise<CreateQrResult> {
  checkHeaders(input);
  const fingerprint = requestFingerprint(input.body, { 'x-time-zone': input.timeZone });
  const scope: IdempotencyScope = { merchantId: principal.merchantId, scope: SCOPE, key: input.idempotencyKey.toLowerCase() };

  const cacheScope = cacheScopeOf(input.idempotencyKey, input.presentedKeyId);
  const cacheKey = cacheKeyOf(cacheScope);
  const cached = input.prefetched?.has(cacheKey) ? parseCachedRecord(input.prefetched.get(cacheKey)) : await readCachedRecord(deps.redis, cacheScope);
  if (cached) return replay(deps, principal, cached, fingerprint, input);

  // Optimistic for a new key: PostgreSQL is asked only when the write finds the key taken, or when this
  // attempt fails; either way an existing transaction is the answer, whatever this body's checks say today.
  let created: CreateQrResult | 'key_taken';
  try {
    created = await createNew(deps, principal, input, scope, cacheScope, fingerprint, now);
  } catch (err) {
    const known = err instanceof AppError ? await findRecord(deps.db, scope).catch(() => undefined) : undefined;
    if (known) return replay(deps, principal, known, fingerprint, input);
    throw err;
  }
  if (created !== 'key_taken') return created;
  const winner = await findRecord(deps.db, scope);
  if (!winner) throw new Error('idempotency record vanished after a conflict');
  return replay(deps, principal, winner, fingerprint, input);
}

async function createNew(
  deps: ApiDeps,
  principal: ApiKeyPrincipal,
  input: CreateQrInput,
  scope: IdempotencyScope,
  cacheScope: CacheScope,
  fingerprint: string,
  now: Date,
): Promise<CreateQrResult | 'key_taken'> {
  const draft = parseQrCreateRequest(input.body, now);
  checkMerchant(principal, draft.store_uid, now);
  const skus = skusToResolve(draft);
  const resolved = resolveConceptKeys(draft, await productKeysBySku(deps.db, principal.merchantId, skus));
  if ('details' in resolved) throw new AppError(400, 'validation_failed', 'The request has invalid or missing fields.', { details: resolved.details });
  const { request } = resolved;
  const issuedLocal = localDateTime(now, input.timeZone);
  const violations = checkQrRules(request, { catalogs: deps.catalogs, onDate: issuedLocal.slice(0, 10) });
  if (violations.length > 0) {
    throw new AppError(422, 'rule_violation', 'The request breaks SAT catalog or arithmetic rules.', { details: violations });
  }
  const offline = await offlineBinding(deps, principal, draft, now);

  // Both carry the sale's created_at (`now`): its month partition (docs/data-growth.md).
  const qrId = newQrId(now);
  const token = newQrToken(now);
  const content = qrContent(deps.config.publicBaseUrl, signQrToken(token, deps.config.qrHmacKey));
  const png = await renderQr(deps, qrId, content);

  const record = buildQrTransactionRecord({
    request,
    qrId,
    token,
    shortCode: offline?.shortCode ?? newShortCode(),
    png,
    principal,
    idempotencyKey: scope.key,
    timeZone: input.timeZone,
    issuedLocal,
    now,
    ...(offline ? { offline: { keyId: offline.keyId, soldAt: offline.soldAt } } : {}),
  });
  if (!(await recordWithFreshShortCode(deps, record, fingerprint))) return 'key_taken';
  crashAfterCommit('qr-created');
  qrTransitions.inc({ status: 'PENDING' });

  await cacheRecord(deps.redis, cacheScope, { fingerprint, resourceId: qrId }, deps.config.idempotencyCacheSeconds);
  await scheduleExpiry(deps, qrId, record.transaction.expires_at, now);
  if (offline) await settleClaimOf(deps, qrId);
  const viewed = { ...record, storeName: principal.merchantName, issuerRfc: principal.issuerRfc, issuerName: principal.issuerName };
  const view = viewContext(deps);
  return { view: qrTransactionView(viewed, view, fixedViewParts(viewed, view)), replayed: false };
}

/**
 * Two sales drawing one short code is ~1 in 10^8 per QR with ten million on file: the statement then
 * fails whole (the idempotency claim too), so draw again rather than answer 500.
 */
async function recordWithFreshShortCode(deps: ApiDeps, record: NewQrTransaction, fingerprint: string): Promise<boolean> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await recordQrTransaction(deps.db, record, { scope: SCOPE, fingerprint });
    } catch (err) {
      const e = err as { code?: string; constraint?: string };
      if (e.code === '23505' && e.constraint === OFFLINE_TICKET_INDEX) throw ticketAlreadyBound();
      if (e.code === '23505' && e.constraint === SALE_QR_INDEX) throw await saleHasQr(deps, record);
      if (e.code === '23505' && e.constraint === SALE_KEY_INDEX) throw keyPastItsWindow();
      if (attempt >= 3 || e.code !== '23505' || e.constraint !== SHORT_CODE_INDEX) throw err;
      record.transaction.short_code = newShortCode();
    }
  }
}

/**
 * A sale_id holds one open or invoiced QR (issue #39): a POS that lost its idempotency key and posts the sale
 * again learns which QR it has, to show or print that one; a second QR could be invoiced or reported twice.
 */
async function saleHasQr(deps: ApiDeps, record: NewQrTransaction): Promise<AppError> {
  const t = record.transaction;
  const held = await qrHoldingSale(deps.db, t.merchant_id, t.mode, t.sale_id);
  const which = held ? `QR ${held.id} (${held.status})` : 'a QR';
  return new AppError(
    409,
    'sale_has_qr',
    `Sale ${JSON.stringify(t.sale_id)} already has ${which}; show that one (GET /v1/qrs/{qrId}). A sale gets a new QR only once its QR has expired or its invoice was cancelled.`,
    {
      details: [{ field: 'sale_id', code: 'sale_has_qr', message: `This sale_id already has ${which}.` }],
      ...(held ? { extra: { qr: { qr_id: held.id, status: held.status, created_at: held.created_at.toISOString(), expires_at: held.expires_at.toISOString() } } } : {}),
    },
  );
}

/** A buyer may have left their data on the ticket: settled now; the periodic run settles it if this add is lost. */
async function settleClaimOf(deps: ApiDeps, qrId: string): Promise<void> {
  try {
    await deps.producers.add('settle-offline-claims', { transactionId: qrId });
  } catch (err) {
    deps.logger.warn({ err, qr_id: qrId }, 'offline claim not settled now; the periodic run will');
  }
}

/**
 * A QR due within the planner's window schedules its own expiry bucket (the planner may have looked
 * already); a later one costs Redis nothing now: the planner schedules its bucket when it comes near
 * (shared/domain/expiry-buckets.ts). When Redis refuses it, the periodic sweep still expires the QR.
 */
async function scheduleExpiry(deps: ApiDeps, qrId: string, expiresAt: Date, now: Date): Promise<void> {
  if (!withinPlanWindow(expiresAt, now)) return;
  try {
    await scheduleExpiryBuckets(deps.producers, [expiryBucket(expiresAt)]);
  } catch (err) {
    deps.logger.warn({ err, qr_id: qrId }, 'expiry job not scheduled; the sweep will expire this QR');
  }
}
