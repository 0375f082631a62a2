import { randomUUID } from 'node:crypto';
import { postQr, saleBody, sleep, startServices, waitFor, type ChaosContext } from '../chaos-context.js';
import { History } from '../history.js';
import { answerLabel, isErrorObject, tally } from '../http-call.js';
import { openLoop } from '../open-loop.js';
import type { OwnPostgres } from '../own-postgres.js';
import { check, type ScenarioResult } from '../scenario-result.js';

export interface PostgresCrashOptions {
  /** POST /v1/qrs per second, open loop. */
  rate: number;
  /** How long the cluster stays down. */
  downMs: number;
}

/**
 * `pg_ctl stop -m immediate` on the run's own cluster under POST /v1/qrs load, started again `downMs`
 * later (crash recovery). Afterwards: every answer a 201 or a 503 error object, no process exited, every
 * 201 in PostgreSQL, no transaction without all its concepts and taxes, 201s again within 10 s.
 */
export async function postgresCrash(ctx: ChaosContext, postgres: OwnPostgres, options: PostgresCrashOptions): Promise<ScenarioResult> {
  const started = performance.now();
  const services = await startServices(ctx, 'pgcrash');
  const history = new History();
  let stopAt = Infinity;
  try {
    const load = openLoop(options.rate, async () => {
      const key = randomUUID();
      await history.record('post', key, () => postQr(ctx, services.baseUrl, saleBody(ctx), key, 30_000));
    }, () => history.now() > stopAt);
    await sleep(3000);
    const crashAt = history.now();
    await postgres.crash();
    await sleep(options.downMs);
    await postgres.start();
    const upAt = history.now();
    await waitFor(async () => history.of('post').some((e) => e.at > upAt && e.answer.status === 201), 30_000);
    stopAt = history.now() + 3000;
    const { fired } = await load;

    const posts = history.of('post');
    const created = posts.filter((e) => e.answer.status === 201).map((e) => (e.answer.body as { qr_id: string }).qr_id);
    const inDb = Number((await ctx.db('qr_transactions').whereIn('id', created).count({ n: '*' }).first())?.n ?? 0);
    const bad = posts.filter((e) => e.answer.status !== 201 && (e.answer.status !== 503 || !isErrorObject(e.answer.body)));
    const keys = posts.map((e) => e.key);
    // The sample sale has 3 concepts and 2 taxes: a transaction with fewer is half written.
    const half = (await ctx.db('qr_transactions as t').whereIn('t.idempotency_key', keys)
      .select('t.id')
      .select(ctx.db.raw('(select count(*) from qr_concepts c where c.transaction_id = t.id)::int as concepts'))
      .select(ctx.db.raw('(select count(*) from qr_concept_taxes x where x.transaction_id = t.id)::int as taxes'))) as { id: string; concepts: number; taxes: number }[];
    const halfWritten = half.filter((r) => r.concepts !== 3 || r.taxes !== 2);
    const firstOk = posts.filter((e) => e.at > upAt && e.answer.status === 201).sort((a, b) => a.at - b.at)[0];
    const backMs = firstOk ? firstOk.at + firstOk.answer.ms - upAt : undefined;
    return {
      scenario: `PostgreSQL crash (stop -m immediate), down ${options.downMs / 1000} s at ${options.rate} POST/s`,
      counts: `${fired} POSTs (${tally(posts.map((e) => answerLabel(e.answer)))}); crash at ${(crashAt / 1000).toFixed(1)} s, up at ${(upAt / 1000).toFixed(1)} s; ${half.length} rows written`,
      checks: [
        check('only 201 or 503 error objects', bad.length === 0, bad.length ? tally(bad.map((e) => answerLabel(e.answer))) : ''),
        check('no process crashed', services.crashes().length === 0, services.crashes().join('; ')),
        check('every 201 in PostgreSQL', inDb === created.length, `${inDb}/${created.length}`),
        check('no half-written transaction', halfWritten.length === 0, `${halfWritten.length} of ${half.length}`),
        check('201 again within 10 s of the restart', backMs !== undefined && backMs <= 10_000, backMs === undefined ? 'never' : `${(backMs / 1000).toFixed(1)} s`),
      ],
      timings: `first 201 ${backMs === undefined ? 'never' : `${(backMs / 1000).toFixed(1)} s`} after PostgreSQL was up`,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    stopAt = 0;
    await history.save(`${ctx.workDir}/pgcrash-history.jsonl`);
    await services.stop();
  }
}
