import { randomUUID } from 'node:crypto';
import { confirmQr, postQr, saleBody, startServices, waitFor, type ChaosContext } from '../chaos-context.js';
import type { History } from '../history.js';
import { answerLabel, tally } from '../http-call.js';
import { postsThroughOutage } from '../posts-through-outage.js';
import type { OwnRedis } from '../own-redis.js';
import { check, type ScenarioResult } from '../scenario-result.js';

export interface RedisOutageOptions {
  outageMs: number;
  /** POST /v1/qrs per second, open loop. */
  rate: number;
}

/**
 * The run's own redis-server is killed (no persistence: it comes back empty) under POST /v1/qrs load and
 * started again on the same port `outageMs` later. Afterwards: every 201 is in PostgreSQL, every other
 * answer a 503 error object, the workers resume on their own within 30 s (a new POST gets 201, which
 * needs its render job to run) and a confirmation made after the outage is stamped.
 */
export async function redisOutage(ctx: ChaosContext, redis: OwnRedis, options: RedisOutageOptions): Promise<ScenarioResult> {
  const started = performance.now();
  const services = await startServices(ctx, `redis${options.outageMs}`);
  let history: History | undefined;
  try {
    const run = await postsThroughOutage(ctx, services, options.rate, options.outageMs, { down: () => redis.kill(), up: () => redis.restart() });
    history = run.history;
    const { fired, posts, created, inDb, bad, downAt, upAt: restartedAt } = run;
    const others = run.refused;
    const resumeMs = run.backMs;
    const resumed = resumeMs;

    // The stamp worker too: a QR made and confirmed after the outage ends INVOICED.
    const key = randomUUID();
    const qr = await postQr(ctx, services.baseUrl, saleBody(ctx), key);
    const qrId = (qr.body as { qr_id?: string } | undefined)?.qr_id;
    const confirmed = qrId ? await confirmQr(services.baseUrl, (qr.body as { qr_content: string }).qr_content) : undefined;
    const stampedIn =
      qrId && confirmed?.status === 202
        ? await waitFor(async () => (await ctx.db('qr_transactions').where({ id: qrId }).first('status'))?.status === 'INVOICED', 30_000)
        : undefined;

    return {
      scenario: `Redis down ${options.outageMs / 1000} s at ${options.rate} POST/s`,
      counts: `${fired} POSTs (${tally(posts.map((e) => answerLabel(e.answer)))}); outage from ${(downAt / 1000).toFixed(1)} s to ${(restartedAt / 1000).toFixed(1)} s`,
      checks: [
        check('no 201 lost (every 201 in PostgreSQL)', inDb === created.length, `${inDb}/${created.length}`),
        check('errors only as 503 error objects', bad.length === 0, bad.length ? tally(bad.map((e) => answerLabel(e.answer))) : `${others.length} × 503`),
        check(
          'POST /v1/qrs (render worker) back within 30 s',
          resumed !== undefined && resumeMs !== undefined && resumeMs <= 30_000,
          resumeMs === undefined ? 'never' : `${(resumeMs / 1000).toFixed(1)} s`,
        ),
        check(
          'a confirmation after the outage is stamped within 30 s',
          stampedIn !== undefined,
          stampedIn === undefined ? `confirm ${confirmed?.status ?? 'not made'}` : `${(stampedIn / 1000).toFixed(1)} s`,
        ),
        check('no process crashed', services.crashes().length === 0, services.crashes().join('; ')),
      ],
      timings: `first 201 ${resumeMs === undefined ? 'never' : `${(resumeMs / 1000).toFixed(1)} s`} after Redis came back; stamp after it ${stampedIn === undefined ? 'never' : `${(stampedIn / 1000).toFixed(1)} s`}`,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await history?.save(`${ctx.workDir}/redis${options.outageMs}-history.jsonl`);
    await services.stop();
  }
}
