// The lean same-work server's routes: POST /v1/qrs does what the project's does for a new sale, without
// its SAT checks, auth table or worker (the yardstick of issue #31, not a design to copy); GET
// /v1/qrs/:id answers the stored sale by primary key.
import { createHmac, randomBytes } from 'node:crypto';
import Koa from 'koa';
import { Router } from '@koa/router';
import { koaBody } from 'koa-body';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { parseQrCreateRequest } from '../../api/qrs/parse-qr-request.js';
import { AppError } from '../../shared/platform/errors.js';
import { claimSale } from './claim.js';
import { renderLeanQr, type LeanEncoder } from './render.js';
import { findSale, insertSale, type LeanSaleRow } from './store.js';

export interface LeanDeps {
  pool: pg.Pool;
  redis: Redis;
  prefix: string;
  publicBaseUrl: string;
  hmacKey: string;
  encoder: LeanEncoder;
  ratePerMinute: number;
}

/** The project's deep link (shared/qr/qr-link.ts): 128-bit token, HMAC-SHA256 truncated to 128 bits. */
function signedLink(baseUrl: string, key: string): string {
  const token = randomBytes(16).toString('base64url');
  const mac = createHmac('sha256', key).update(`v1.${token}`).digest().subarray(0, 16).toString('base64url');
  return `${baseUrl}/q?v=1&t=${token}&m=${mac}`;
}

function view(row: Pick<LeanSaleRow, 'id' | 'sale_id' | 'amount' | 'currency' | 'qr_content' | 'qr_png'>): Record<string, string> {
  return {
    qr_id: row.id,
    sale_id: row.sale_id,
    amount: row.amount,
    currency: row.currency,
    qr_content: row.qr_content,
    qr_base64: `data:image/png;base64,${row.qr_png.toString('base64')}`,
  };
}

export function leanApp(deps: LeanDeps): Koa {
  const app = new Koa();
  const router = new Router();
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      ctx.status = err.status;
      ctx.body = { error: err.code, message: err.message, details: err.details };
    }
  });
  router.post('/v1/qrs', koaBody({ jsonLimit: '256kb' }), async (ctx) => {
    const apiKey = ctx.get('x-api-key');
    const idempotencyKey = ctx.get('idempotency-key');
    if (!apiKey || !idempotencyKey) throw new AppError(400, 'validation_failed', 'X-API-Key and idempotency-key are required.');
    const request = parseQrCreateRequest(ctx.request.body, new Date());
    const id = `qr_${randomBytes(16).toString('base64url')}`;
    const claim = await claimSale(deps.redis, { prefix: deps.prefix, apiKey, idempotencyKey, saleId: id, ratePerMinute: deps.ratePerMinute });
    if (claim === 'rate_limited') throw new AppError(429, 'rate_limited', 'Too many requests for this API key.');
    if (claim === 'key_taken') throw new AppError(409, 'idempotency_key_reused', 'This idempotency-key was already used.');
    const content = signedLink(deps.publicBaseUrl, deps.hmacKey);
    const png = renderLeanQr(deps.encoder, content);
    const amount = String(request.amount);
    await insertSale(deps.pool, {
      id,
      storeUid: request.store_uid,
      saleId: request.sale_id,
      amount,
      subtotal: String(request.subtotal),
      currency: request.currency,
      expiresAt: request.expires_at,
      qrContent: content,
      concepts: request.operation_data,
      png,
    });
    ctx.status = 201;
    ctx.body = view({ id, sale_id: request.sale_id, amount, currency: request.currency, qr_content: content, qr_png: png });
  });
  router.get('/v1/qrs/:id', async (ctx) => {
    const row = await findSale(deps.pool, ctx.params.id!);
    if (!row) throw new AppError(404, 'not_found', 'No such QR.');
    ctx.body = view(row);
  });
  app.use(router.routes());
  return app;
}
