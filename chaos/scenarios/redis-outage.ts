import { randomUUID } from 'node:crypto';
import { confirmQr, postQr, saleBody, sleep, startServices, waitFor, type ChaosContext } from '../chaos-context.js';
import { History } from '../history.js';
import { answerLabel, isErrorObject, tally } from '../http-call.js';
import { openLoop } from '../open-loop.js';
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
  const history = new History();
  let restartedAt = Infinity;
  let stopAt = Infinity;
  try {
    const load = openLoop(options.rate, async () => {
      const key = randomUUID();
      await history.record('post', key, () => postQr(ctx, services.baseUrl, saleBody(ctx), key, 30_000));
    }, () => history.now() > stopAt);
    await sleep(3000);
    const downAt = history.now();
    await redis.kill();
    await sleep(options.outageMs);
    await redis.restart();
    restartedAt = history.now();
    // Keep the load on until new requests succeed again (or 30 s), then 3 s more.
    const resumed = await waitFor(async () => history.of('post').some((e) => e.at > restartedAt && e.answer.status === 201), 30_000);
    stopAt = history.now() + 3000;
    const { fired } = await load;

    const posts = history.of('post');
    const created = posts.filter((e) => e.answer.status === 201).map((e) => (e.answer.body as { qr_id: string }).qr_id);
    const inDb = Number((await ctx.db('qr_transactions').whereIn('id', created).count({ n: '*' }).first())?.n ?? 0);
    const others = posts.filter((e) => e.answer.status !== 201);
    const bad = others.filter((e) => e.answer.status !== 503 || !isErrorObject(e.answer.body));
    const firstOk = posts.filter((e) => e.at > restartedAt && e.answer.status === 201).sort((a, b) => a.at - b.at)[0];
    const resumeMs = firstOk ? firstOk.at + firstOk.answer.ms - restartedAt : undefined;

    // The stamp worker too: a QR made and confirmed after the outage ends INVOICED.
    const key = randomUUID();
    const qr = await postQr(ctx, services.baseUrl, saleBody(ctx), key);
    const qrId = (qr.body as { qr_id?: string } | undefined)?.qr_id;
    const confirmed = qrId ? await confirmQr(services.baseUrl, (qr.body as { qr_content: string }).qr_content) : undefined;
    const stampedIn = qrId && confirmed?.status === 202
      ? await waitFor(async () => (await ctx.db('qr_transactions').where({ id: qrId }).first('status'))?.status === 'INVOICED', 30_000)
      : undefined;

    return {
      scenario: `Redis down ${options.outageMs / 1000} s at ${options.rate} POST/s`,
      counts: `${fired} POSTs (${tally(posts.map((e) => answerLabel(e.answer)))}); outage from ${(downAt / 1000).toFixed(1)} s to ${(restartedAt / 1000).toFixed(1)} s`,
      checks: [
        check('no 201 lost (every 201 in PostgreSQL)', inDb === created.length, `${inDb}/${created.length}`),
        check('errors only as 503 error objects', bad.length === 0, bad.length ? tally(bad.map((e) => answerLabel(e.answer))) : `${others.length} × 503`),
        check('POST /v1/qrs (render worker) back within 30 s', resumed !== undefined && resumeMs !== undefined && resumeMs <= 30_000, resumeMs === undefined ? 'never' : `${(resumeMs / 1000).toFixed(1)} s`),
        check('a confirmation after the outage is stamped within 30 s', stampedIn !== undefined, stampedIn === undefined ? `confirm ${confirmed?.status ?? 'not made'}` : `${(stampedIn / 1000).toFixed(1)} s`),
        check('no process crashed', services.crashes().length === 0, services.crashes().join('; ')),
      ],
      timings: `first 201 ${resumeMs === undefined ? 'never' : `${(resumeMs / 1000).toFixed(1)} s`} after Redis came back; stamp after it ${stampedIn === undefined ? 'never' : `${(stampedIn / 1000).toFixed(1)} s`}`,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    stopAt = 0;
    await history.save(`${ctx.workDir}/redis${options.outageMs}-history.jsonl`);
    await services.stop();
  }
}
