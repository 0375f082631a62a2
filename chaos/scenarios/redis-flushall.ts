import { randomUUID } from 'node:crypto';
import { postQr, saleBody, sleep, startServices, type ChaosContext } from '../chaos-context.js';
import { History } from '../history.js';
import { answerLabel, tally } from '../http-call.js';
import type { OwnRedis } from '../own-redis.js';
import { check, type ScenarioResult } from '../scenario-result.js';

export interface RedisFlushOptions {
  /** QRs pending (PENDING, expiring soon) when Redis is flushed. */
  pending: number;
}

const SWEEP_MS = 5000;

/**
 * FLUSHALL while `pending` QRs wait for their expiry jobs: every one is EXPIRED within one sweep period
 * (EXPIRY_SWEEP_MS) of its expires_at anyway. Then FLUSHALL again and an API restart: replaying every
 * earlier request with its idempotency key answers 201 with the same transaction (from PostgreSQL).
 */
export async function redisFlushAll(ctx: ChaosContext, redis: OwnRedis, options: RedisFlushOptions): Promise<ScenarioResult> {
  const started = performance.now();
  const services = await startServices(ctx, 'flush', { EXPIRY_SWEEP_MS: String(SWEEP_MS) });
  const history = new History();
  try {
    const expiresAt = new Date(Date.now() + 20_000 + options.pending * 10);
    const requests = Array.from({ length: options.pending }, () => ({ key: randomUUID(), body: saleBody(ctx, expiresAt) }));
    let next = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        for (let r = requests[next++]; r; r = requests[next++]) {
          const item = r;
          // A 503 (load shed, Retry-After) is retried with the same key, as a POS does.
          while ((await history.record('create', item.key, () => postQr(ctx, services.baseUrl, item.body, item.key))).status === 503) await sleep(100);
        }
      }),
    );
    const created = history.of('create').filter((e) => e.answer.status === 201);
    const ids = created.map((e) => (e.answer.body as { qr_id: string }).qr_id);
    const flushedAt = Date.now();
    await redis.flushAll();
    const deadline = expiresAt.getTime() + SWEEP_MS + 3000;
    await sleep(Math.max(0, deadline - Date.now()));
    const rows = (await ctx.db('qr_transactions').whereIn('id', ids).select('status', 'expires_at', 'expired_at')) as {
      status: string;
      expires_at: Date;
      expired_at: Date | null;
    }[];
    const expired = rows.filter((r) => r.status === 'EXPIRED' && r.expired_at);
    const lateness = expired.map((r) => r.expired_at!.getTime() - r.expires_at.getTime()).sort((a, b) => a - b);
    const maxLate = lateness.at(-1) ?? Infinity;

    // Redis loses everything again and the API starts afresh: replays are answered from PostgreSQL.
    await redis.flushAll();
    await services.api.kill();
    await services.api.start();
    const byKey = new Map(created.map((e) => [e.key, e.answer.body as { qr_id: string }]));
    const replayKeys = requests.filter((r) => byKey.has(r.key));
    next = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        for (let r = replayKeys[next++]; r; r = replayKeys[next++]) {
          const item = r;
          await history.record('replay', item.key, () => postQr(ctx, services.baseUrl, item.body, item.key));
        }
      }),
    );
    const replays = history.of('replay');
    const same = replays.filter((e) => e.answer.status === 201 && (e.answer.body as { qr_id?: string }).qr_id === byKey.get(e.key)?.qr_id);
    const rowCount = Number(
      (
        await ctx
          .db('qr_transactions')
          .where({ merchant_id: ctx.account.merchantId })
          .whereIn(
            'idempotency_key',
            requests.map((r) => r.key),
          )
          .count({ n: '*' })
          .first()
      )?.n ?? 0,
    );
    return {
      scenario: `Redis FLUSHALL with ${options.pending} pending QRs; FLUSHALL + API restart, ${replays.length} replays`,
      counts: `${created.length} QRs created (${tally(history.of('create').map((e) => answerLabel(e.answer)))}), flushed ${((expiresAt.getTime() - flushedAt) / 1000).toFixed(1)} s before they expire; replays: ${tally(replays.map((e) => answerLabel(e.answer)))}`,
      checks: [
        check(
          `all EXPIRED within one sweep period (${SWEEP_MS / 1000} s) of expires_at`,
          expired.length === ids.length && maxLate <= SWEEP_MS + 1000,
          `${expired.length}/${ids.length} expired${lateness.length ? `, late by ${(lateness[0]! / 1000).toFixed(1)}–${(maxLate / 1000).toFixed(1)} s` : ''}`,
        ),
        check('every replay answers the same transaction', same.length === replayKeys.length, `${same.length}/${replayKeys.length}`),
        check('no new rows from the replays', rowCount === created.length, `${rowCount} rows for ${created.length} QRs`),
        check('no process crashed', services.crashes().length === 0, services.crashes().join('; ')),
      ],
      timings: `expired ${lateness.length ? `${(lateness[Math.floor(lateness.length / 2)]! / 1000).toFixed(1)} s (median), ${(maxLate / 1000).toFixed(1)} s (max)` : 'never'} after expires_at`,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await services.stop();
  }
}
