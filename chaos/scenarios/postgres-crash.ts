import { startServices, type ChaosContext } from '../chaos-context.js';
import type { History } from '../history.js';
import { answerLabel, tally } from '../http-call.js';
import { postsThroughOutage } from '../posts-through-outage.js';
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
  let history: History | undefined;
  try {
    const run = await postsThroughOutage(ctx, services, options.rate, options.downMs, { down: () => postgres.crash(), up: () => postgres.start() });
    history = run.history;
    const { fired, posts, created, inDb, bad, backMs, downAt: crashAt, upAt } = run;
    const keys = posts.map((e) => e.key);
    // The sample sale has 3 concepts and 2 taxes: a transaction with fewer is half written.
    const half = (await ctx
      .db('qr_transactions as t')
      .whereIn('t.idempotency_key', keys)
      .select('t.id')
      .select(ctx.db.raw('(select count(*) from qr_concepts c where c.transaction_id = t.id)::int as concepts'))
      .select(ctx.db.raw('(select count(*) from qr_concept_taxes x where x.transaction_id = t.id)::int as taxes'))) as { id: string; concepts: number; taxes: number }[];
    const halfWritten = half.filter((r) => r.concepts !== 3 || r.taxes !== 2);
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
    await history?.save(`${ctx.workDir}/pgcrash-history.jsonl`);
    await services.stop();
  }
}
